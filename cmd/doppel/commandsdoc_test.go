package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/commands.md's flag reference from what the commands' -h prints")

// flagsHeading starts the generated part of docs/commands.md: the flag
// reference, to its end.
const flagsHeading = "## Every command's flags"

// TestCommandsDoc: docs/commands.md ends with every command's flags as
// its -h prints them, so the reference cannot drift from the code;
// -args -update rewrites it.
func TestCommandsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "commands.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	head, _, found := strings.Cut(doc, flagsHeading)
	if !found {
		head += "\n"
	}
	want := head + flagsReference(t)
	if *updateDoc {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("docs/commands.md's flag reference differs from what the commands' -h prints: run\n" +
			"  go test ./cmd/doppel -run TestCommandsDoc -args -update")
	}
}

// flagsReference returns the flag reference: for each command, the flags
// its -h lists (the flag package's PrintDefaults), in a text block.
func flagsReference(t *testing.T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nGenerated from each command's `-h` by `go test ./cmd/doppel -run TestCommandsDoc -args -update`,\n"+
		"which the default test run checks. Every flag of serve, detect and dedup is also a setting of their\n"+
		"configuration file (`--config FILE`), which `--print-config` prints, as are crawl's and worker's\n"+
		"crawl flags (crawler.Options).\n", flagsHeading)
	for _, c := range commands {
		code, _, stderr := doppel(t, c.name, "-h")
		if code != 0 {
			t.Fatalf("doppel %s -h: exit %d: %s", c.name, code, stderr)
		}
		flags := flagLines(stderr)
		if flags == "" {
			flags = "(no flags)\n"
		}
		fmt.Fprintf(&b, "\n### `doppel %s`\n\n```text\n%s```\n", c.name, flags)
	}
	return b.String()
}

// flagLines returns the lines of usage that list flags: from the first
// "  -name" line, each flag's line and its indented usage lines.
func flagLines(usage string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			in = true
		case in && strings.HasPrefix(line, "    "):
		case in:
			return b.String()
		default:
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
