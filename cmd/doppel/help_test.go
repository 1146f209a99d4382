package main

import (
	"flag"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestHelpListsFlags: `doppel COMMAND -h` exits 0 and prints the
// command's usage with its flags, for every command; run lists the crawl
// flags it passes on (all but --serve and --once) and its --addr.
func TestHelpListsFlags(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := doppel(t, c.name, "-h")
			out := stdout + stderr
			if code != 0 {
				t.Fatalf("doppel %s -h: exit %d\n%s", c.name, code, out)
			}
			if !strings.HasPrefix(out, "usage: doppel "+c.name) {
				t.Errorf("doppel %s -h does not start with its usage:\n%s", c.name, out)
			}
			listed := map[string]bool{}
			for _, m := range flagLine.FindAllStringSubmatch(out, -1) {
				listed[m[1]] = true
			}
			switch c.name {
			case "version":
				if len(listed) != 0 || !strings.Contains(out, "no flags") {
					t.Errorf("doppel version -h: lists %v; want no flags, and says so:\n%s", listed, out)
				}
			case "run":
				crawl, _ := newCrawlFlags(io.Discard)
				crawl.VisitAll(func(f *flag.Flag) {
					if listed[f.Name] == (f.Name == "serve" || f.Name == "once") {
						t.Errorf("doppel run -h: crawl flag --%s listed %v", f.Name, listed[f.Name])
					}
				})
				if !listed["addr"] {
					t.Errorf("doppel run -h does not list --addr:\n%s", out)
				}
			default:
				if len(listed) == 0 {
					t.Errorf("doppel %s -h lists no flags:\n%s", c.name, out)
				}
			}
		})
	}
}

// TestVersion: `doppel version` (and --version) prints the module path,
// its version and the Go version it was built with; it takes no
// arguments.
func TestVersion(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("the test binary carries no build information")
	}
	module := bi.Main.Path
	if module == "" {
		module = bi.Path
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := doppel(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "doppel ") || !strings.Contains(stdout, "go: "+runtime.Version()) ||
			!strings.Contains(stdout, "("+module+")") {
			t.Errorf("doppel %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := doppel(t, "version", "extra"); code != 2 {
		t.Errorf("doppel version extra: exit %d (%s); want 2", code, stderr)
	}
}

// TestVersionText: the revision, its time and a modified tree are shown
// when the build recorded them.
func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want []string
	}{
		{debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "example.com/d", Version: "v1.2.3"}},
			[]string{"doppel v1.2.3 (example.com/d)\n", "go: go1.99\n"}},
		{debug.BuildInfo{GoVersion: "go1.99", Path: "example.com/d/cmd/doppel", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-27T00:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"doppel (devel) (example.com/d/cmd/doppel)\n", "revision: abc123 (modified)\n", "committed: 2026-11-27T00:00:00Z\n"}},
	} {
		got := versionText(&tc.bi)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("versionText(%+v) = %q; want %q in it", tc.bi.Main, got, w)
			}
		}
	}
}
