package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// runVersion prints the module's version and the build's VCS revision,
// time and state, and the Go version, from the build information.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel version\n\nPrints the module version, the source revision it was built from (with\n"+
			"\"modified\" if the work tree had changes) and the Go version. It takes no flags.")
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("this binary carries no build information")
	}
	fmt.Fprint(stdout, versionText(bi))
	return nil
}

// versionText formats build information: "doppel VERSION (MODULE)", then
// the revision, its time and whether the tree was modified, when the
// build recorded them, and the Go version.
func versionText(bi *debug.BuildInfo) string {
	path, version := bi.Main.Path, bi.Main.Version
	if path == "" {
		path = bi.Path
	}
	if version == "" {
		version = "(devel)"
	}
	out := fmt.Sprintf("doppel %s (%s)\n", version, path)
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		out += "revision: " + rev
		if vcs["vcs.modified"] == "true" {
			out += " (modified)"
		}
		out += "\n"
	}
	if t := vcs["vcs.time"]; t != "" {
		out += "committed: " + t + "\n"
	}
	return out + "go: " + bi.GoVersion + "\n"
}
