package main

import (
	"flag"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/internal/settings"
	"github.com/doppel-search/doppel/web"
)

// fieldFlags returns the names of the flags the fields of T declare.
func fieldFlags[T any]() []string {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	settings.Register[T](fs, flagParsers...)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// TestHelpListsSettings: `doppel COMMAND -h` lists the flag of every
// field of the command's settings; a command whose flags are all its
// settings' (and --config, --print-config for those that read a file)
// lists no other, so no flag is declared by hand beside them.
func TestHelpListsSettings(t *testing.T) {
	for _, tc := range []struct {
		command string
		fields  []string // the flags of the command's settings types
		config  bool     // --config and --print-config
		only    bool     // no flag but these
	}{
		{"serve", fieldFlags[serveSettings](), true, true},
		{"detect", fieldFlags[detectSettings](), true, true},
		{"report", fieldFlags[reportSettings](), false, true},
		{"check", fieldFlags[checkSettings](), false, true},
		{"export", fieldFlags[exportSettings](), false, true},
		{"shard", fieldFlags[shardSettings](), false, true},
		{"demo", fieldFlags[demoSettings](), false, true},
		{"eval", fieldFlags[evalSettings](), false, true},
		{"extract", fieldFlags[extractSettings](), false, true},
		{"dedup", fieldFlags[dedupSettings](), true, true},
		{"crawl", append(fieldFlags[crawler.Options](), fieldFlags[identitySettings]()...), true, false},
		{"worker", append(fieldFlags[crawler.Options](), fieldFlags[workerSettings]()...), true, false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			if len(tc.fields) < 1 {
				t.Fatal("the settings declare no flag")
			}
			code, _, stderr := doppel(t, tc.command, "-h")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			listed := map[string]bool{}
			for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(stderr, -1) {
				listed[m[1]] = true
			}
			want := slices.Clone(tc.fields)
			if tc.config {
				want = append(want, "config", "print-config")
			}
			for _, name := range want {
				if !listed[name] {
					t.Errorf("-h does not list --%s:\n%s", name, stderr)
				}
				delete(listed, name)
			}
			if tc.only && len(listed) > 0 {
				t.Errorf("-h lists flags that are no setting: %v", listed)
			}
		})
	}
}

// printConfig runs doppel COMMAND --print-config with args, which must
// exit 0, and returns what it printed.
func printConfig(t *testing.T, command string, args ...string) string {
	t.Helper()
	code, stdout, stderr := doppel(t, append([]string{command, "--print-config"}, args...)...)
	if code != 0 {
		t.Fatalf("doppel %s --print-config %v: exit %d: %s", command, args, code, stderr)
	}
	return stdout
}

// TestPrintConfigOfEveryCommand: for each command that reads a
// configuration file, --print-config prints the defaults overridden by
// the flags; the file it printed, read back with --config, is printed
// the same; a flag overrides the file; and no secret of the environment
// is printed.
func TestPrintConfigOfEveryCommand(t *testing.T) {
	t.Setenv(shardTokenEnv, "shard-secret-1")
	t.Setenv(detectTokenEnv, "detect-secret-2")
	for _, tc := range []struct {
		command  string
		args     []string
		override []string // a flag given with --config
		read     func([]byte) (any, error)
		want     func() any // the settings args give
		changed  func(any) any
	}{
		{"serve", []string{"--data", "/srv/d", "--addr", "127.0.0.1:9", "--redis", "10.0.0.1:7000, 10.0.0.2:7000", "--crawl", "intra",
			"--lease", "1m", "--replicas", "0", "--groups-header", "X-Groups", "--trusted-proxies", "10.0.0.5,192.168.1.7/24",
			"--demo-users", "guest=;alice=hr,it", "--admin-groups", "admin,it", "--admin-addr", "127.0.0.1:9001", "--demo-users-anywhere",
			"--link-map", `file:///srv/share/=\\fs1\share\`, "--link-map", "smb://fs2/docs/=https://files.intra/docs/"},
			[]string{"--addr", "127.0.0.1:10"},
			func(data []byte) (any, error) { s := serveDefaults(); return s, settings.Unmarshal(data, &s) },
			func() any {
				s := serveDefaults()
				s.Data, s.Addr, s.Redis, s.Crawl, s.Lease, s.Replicas = "/srv/d", "127.0.0.1:9", []string{"10.0.0.1:7000", "10.0.0.2:7000"}, "intra", time.Minute, 0
				s.GroupsHeader, s.TrustedProxies = "X-Groups", []netip.Prefix{netip.MustParsePrefix("10.0.0.5/32"), netip.MustParsePrefix("192.168.1.0/24")}
				s.DemoUsers = []web.DemoUser{{Name: "guest"}, {Name: "alice", Groups: []string{"hr", "it"}}}
				s.AdminGroups, s.AdminAddr, s.DemoUsersAnywhere = []string{"admin", "it"}, "127.0.0.1:9001", true
				s.Links = []web.ShareLink{{Prefix: "file:///srv/share/", Target: `\\fs1\share\`}, {Prefix: "smb://fs2/docs/", Target: "https://files.intra/docs/"}}
				return s
			},
			func(v any) any { s := v.(serveSettings); s.Addr = "127.0.0.1:10"; return s }},
		{"detect", []string{"--data", "/srv/d", "--similarity", "cosine", "--snapshot-every", "7", "--redis", "10.0.0.1:7000", "--listen", "127.0.0.1:9"},
			[]string{"--similarity", "resemblance"},
			func(data []byte) (any, error) { s := detectDefaults(); return s, settings.Unmarshal(data, &s) },
			func() any {
				s := detectDefaults()
				s.Data, s.Similarity, s.SnapshotEvery, s.Redis, s.Listen = "/srv/d", dedup.Cosine, 7, []string{"10.0.0.1:7000"}, "127.0.0.1:9"
				return s
			},
			func(v any) any { s := v.(detectSettings); s.Similarity = dedup.Resemblance; return s }},
		{"dedup", []string{"--in", "/srv/docs.jsonl", "--out", "/srv/c.jsonl", "--workers", "3", "--clustering", "star", "--method", "minhash",
			"--similarity", "cosine", "--threshold", "0.8", "--ngrams", "3,5", "--strip-numbers", "--max-fanout", "-1", "--sets-dir", "mem"},
			[]string{"--threshold", "0.95"},
			func(data []byte) (any, error) { s := dedupDefaults(); return s, settings.Unmarshal(data, &s) },
			func() any {
				s := dedupDefaults()
				s.In, s.Out, s.Workers, s.Clustering, s.Method = "/srv/docs.jsonl", "/srv/c.jsonl", 3, "star", "minhash"
				s.Similarity, s.Threshold, s.NGrams, s.StripNumbers, s.MaxFanout, s.SetsDir = dedup.Cosine, 0.8, "3,5", true, -1, "mem"
				return s
			},
			func(v any) any { s := v.(dedupSettings); s.Threshold = 0.95; return s }},
	} {
		t.Run(tc.command, func(t *testing.T) {
			defaults := printConfig(t, tc.command)
			if got, want := mustRead(t, tc.read, defaults), mustRead(t, tc.read, "{}"); !reflect.DeepEqual(got, want) {
				t.Errorf("the defaults printed\n%s\nread as %+v; want %+v", defaults, got, want)
			}
			first := printConfig(t, tc.command, tc.args...)
			got, err := tc.read([]byte(first))
			if want := tc.want(); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("printed\n%s\nreads as %+v (%v)\nwant %+v", first, got, err, want)
			}
			path := writeFile(t, tc.command+".json", first)
			if again := printConfig(t, tc.command, "--config", path); again != first {
				t.Errorf("printed, read back with --config and printed again:\n%s\nthen\n%s", first, again)
			}
			over, err := tc.read([]byte(printConfig(t, tc.command, append([]string{"--config", path}, tc.override...)...)))
			if want := tc.changed(tc.want()); err != nil || !reflect.DeepEqual(over, want) {
				t.Errorf("%v over the file: %+v (%v); want %+v", tc.override, over, err, want)
			}
			for _, secret := range []string{"shard-secret-1", "detect-secret-2"} {
				if strings.Contains(first+defaults, secret) {
					t.Errorf("--print-config shows %s:\n%s", secret, first)
				}
			}
		})
	}
}

// mustRead reads printed settings with read.
func mustRead(t *testing.T, read func([]byte) (any, error), printed string) any {
	t.Helper()
	v, err := read([]byte(printed))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConfigErrors: a configuration file with an unknown or mistyped
// setting is refused naming it (exit 1), a flag value its setting does not
// read is a usage error (exit 2), and nothing is served either way.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"unknown setting", []string{"serve", "--config", writeFile(t, "c.json", `{"adr": ":1"}`)}, 1, `unknown field "adr"`},
		{"mistyped setting", []string{"detect", "--config", writeFile(t, "c.json", `{"snapshot_every": "7"}`)}, 1, "snapshot_every must be int"},
		{"bad similarity in the file", []string{"detect", "--config", writeFile(t, "c.json", `{"similarity": "jaccard"}`)}, 1, "similarity"},
		{"a link map the flag refuses", []string{"serve", "--print-config", "--config", writeFile(t, "c.json", `{"links": [{"prefix": "x", "target": "y"}]}`)}, 1, "links: link map"},
		{"a demo user without a name", []string{"serve", "--print-config", "--config", writeFile(t, "c.json", `{"demo_users": [{"groups": ["hr"]}]}`)}, 1, "demo_users: a user without a name"},
		{"an administrators' address off loopback", []string{"serve", "--print-config", "--admin-addr", "0.0.0.0:8081"}, 1, "give a loopback address"},
		{"missing file", []string{"serve", "--config", "/nonexistent/c.json"}, 1, "no such file"},
		{"bad trusted proxy", []string{"serve", "--data", t.TempDir(), "--trusted-proxies", "nope"}, 2, `--trusted-proxies: "nope" is neither`},
		{"bad demo users", []string{"serve", "--print-config", "--demo-users", "nobody"}, 2, `--demo-users: "nobody" is not name=group,group`},
		{"bad link map", []string{"serve", "--print-config", "--link-map", "file:///srv/"}, 2, "PREFIX=TARGET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := doppel(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d saying %q", code, stdout, stderr, tc.code, tc.says)
			}
		})
	}
}
