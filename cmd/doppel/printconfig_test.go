package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// printedConfig runs doppel with args (a --print-config command), which
// must exit 0, and returns what it printed and the options it reads as.
func printedConfig(t *testing.T, args ...string) (string, crawler.Options) {
	t.Helper()
	code, stdout, stderr := doppel(t, args...)
	if code != 0 {
		t.Fatalf("doppel %v: exit %d: %s", args, code, stderr)
	}
	opts, err := crawler.ParseConfig([]byte(stdout))
	if err != nil {
		t.Fatalf("doppel %v printed what --config does not read (%v):\n%s", args, err, stdout)
	}
	return stdout, opts
}

// TestPrintConfigPrecedence: --print-config prints the effective settings
// — the defaults, overridden by the config file, overridden by the flags
// — and crawls nothing.
func TestPrintConfigPrecedence(t *testing.T) {
	cfg := writeFile(t, "c.json", `{"seeds": ["https://a.example/"], "max_pages": 3, "delay": "1ms", "policy": "hidden",
		"exclude": ["/a"], "max_depth": 4, "revisit": {"prior": "2h"}}`)
	data := filepath.Join(t.TempDir(), "data")
	for _, tc := range []struct {
		name string
		args []string
		want func(*crawler.Options)
	}{
		{"defaults", []string{"--seed", "https://a.example/"}, func(*crawler.Options) {}},
		{"config file over the defaults", []string{"--config", cfg}, func(o *crawler.Options) {
			o.MaxPages, o.Delay, o.Policy, o.Exclude, o.MaxDepth, o.Revisit.Prior = 3, time.Millisecond, indexer.Hidden, []string{"/a"}, 4, 2*time.Hour
		}},
		{"flags over the config file", []string{"--config", cfg, "--max-pages", "4", "--exclude", "/b", "--delay", "0",
			"--similarity", "cosine", "--seed", "https://b.example/", "--data", data}, func(o *crawler.Options) {
			o.Seeds, o.AllowedHosts = []string{"https://b.example/"}, []string{"b.example"}
			o.MaxPages, o.Delay, o.Policy, o.Exclude, o.MaxDepth, o.Revisit.Prior = 4, -1, indexer.Hidden, []string{"/a", "/b"}, 4, 2*time.Hour
			o.Similarity = dedup.Cosine
		}},
		{"a flag set to what the default is", []string{"--config", cfg, "--max-depth", "10"}, func(o *crawler.Options) {
			o.MaxPages, o.Delay, o.Policy, o.Exclude, o.Revisit.Prior = 3, time.Millisecond, indexer.Hidden, []string{"/a"}, 2*time.Hour
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := printedConfig(t, append([]string{"crawl", "--print-config"}, tc.args...)...)
			want := crawler.Options{Seeds: []string{"https://a.example/"}}
			tc.want(&want)
			want.EnsureDefaults()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("printed\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("--print-config created %s", data)
	}
}

// TestPrintConfigRoundTrip: a file --print-config printed, read back with
// --config, gives the same settings, printed the same; crawl.json and
// `doppel run` and `doppel worker` print them alike.
func TestPrintConfigRoundTrip(t *testing.T) {
	args := []string{"--seed", "https://a.example/", "--seed", "file:///srv/share/", "--delay", "250ms", "--parallelism", "3",
		"--policy", "all", "--exclude", "[?&]action=edit", "--fetch-views", "--language", "da", "--user-agent", "Test/1"}
	first, opts := printedConfig(t, append([]string{"crawl", "--print-config"}, args...)...)
	path := writeFile(t, "printed.json", first)
	again, back := printedConfig(t, "crawl", "--print-config", "--config", path)
	if again != first || !reflect.DeepEqual(back, opts) {
		t.Errorf("printed, read back and printed again differs:\n%s\nthen\n%s", first, again)
	}
	if opts.Delay != 250*time.Millisecond || opts.Parallelism != 3 || opts.Policy != indexer.All || !opts.FetchViews ||
		opts.Language != "da" || opts.UserAgent != "Test/1" || len(opts.Seeds) != 2 {
		t.Errorf("the flags are not in the printed settings:\n%s", first)
	}
	// The file holds every setting, defaults included.
	var keys map[string]any
	if err := json.Unmarshal([]byte(first), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"timeout", "max_body_bytes", "traps", "revisit", "refresh_interval", "max_retries"} {
		if keys[k] == nil {
			t.Errorf("the printed settings lack %s:\n%s", k, first)
		}
	}
	if run, _ := printedConfig(t, append([]string{"run", "--addr", "127.0.0.1:0", "--print-config"}, args...)...); run != first {
		t.Errorf("doppel run --print-config printed\n%s\nnot\n%s", run, first)
	}
	if worker, _ := printedConfig(t, append([]string{"worker", "--print-config"}, args...)...); worker != first {
		t.Errorf("doppel worker --print-config printed\n%s\nnot\n%s", worker, first)
	}
}

// TestPrintConfigShowsNoSecret: a seed's password is redacted, and the
// credentials of --netrc, --login and DOPPEL_SMB_PASSWORD are not printed.
func TestPrintConfigShowsNoSecret(t *testing.T) {
	netrc := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(netrc, []byte("machine a.example login alice password netrc-secret-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEST_PRINT_FORM_PASSWORD", "login-secret-2")
	loginFile := writeFile(t, "login.json", `{"logins": [{"prefix": "https://a.example/", "form": {"url": "https://a.example/login",
		"fields": {"username": "carol", "password": "${TEST_PRINT_FORM_PASSWORD}"}}}]}`)
	t.Setenv("DOPPEL_SMB_USER", "smbuser")
	t.Setenv("DOPPEL_SMB_PASSWORD", "smb-secret-3")
	code, stdout, stderr := doppel(t, "crawl", "--print-config", "--seed", "https://bob:seed-secret-4@a.example/",
		"--netrc", netrc, "--login", loginFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, secret := range []string{"netrc-secret-1", "login-secret-2", "smb-secret-3", "seed-secret-4"} {
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("--print-config shows %s:\n%s\n%s", secret, stdout, stderr)
		}
	}
	opts, err := crawler.ParseConfig([]byte(stdout))
	if err != nil || !slices.Equal(opts.Seeds, []string{"https://bob:xxxxx@a.example/"}) {
		t.Errorf("seeds %v (%v); want the seed with its password redacted", opts.Seeds, err)
	}
}

// TestPrintConfigErrors: what a crawl refuses, --print-config refuses
// too, with the same exit status.
func TestPrintConfigErrors(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"max_pagez": 3}`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown config field", []string{"--config", bad}, 1, `unknown field "max_pagez"`},
		{"zero count", []string{"--seed", "https://a.example/", "--parallelism", "0"}, 2, "--parallelism must be at least 1"},
		{"bad policy flag", []string{"--seed", "https://a.example/", "--policy", "drop"}, 1, "want skip, hidden or all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := doppel(t, append([]string{"crawl", "--print-config"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tc.code, tc.msg)
			}
		})
	}
}
