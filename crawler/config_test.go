package crawler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

func TestExampleConfig(t *testing.T) {
	opts, err := ParseConfig([]byte(ExampleConfig))
	if err != nil {
		t.Fatalf("the documented example does not parse: %v", err)
	}
	if err := opts.Validate(); err != nil {
		t.Fatalf("the documented example is invalid: %v", err)
	}
	if opts.Delay != 100*time.Millisecond || opts.Timeout != 10*time.Second || opts.Policy != indexer.Skip ||
		opts.Traps.MaxDuplicatesPerTemplate != 20 || len(opts.Groups) != 1 || opts.Groups[0].Groups[0] != "hr" ||
		len(opts.AllowedHosts) != 2 || opts.MaxBodyBytes != 5242880 || opts.NoDedup || len(opts.Exclude) != 2 ||
		opts.Traps.MaxUselessPerFamily != 20 {
		t.Errorf("example read as %+v", opts)
	}
	// The example is complete: it has every field of the format.
	var keys map[string]any
	if err := json.Unmarshal([]byte(ExampleConfig), &keys); err != nil {
		t.Fatal(err)
	}
	missingKeys(t, reflect.TypeFor[Options](), keys, "")
	// Options written and read back are the same (no delay included).
	opts.Delay = -1
	data, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	var back Options
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, opts) {
		t.Errorf("round trip: %+v, %v; want %+v (written %s)", back, err, opts, data)
	}
	if !strings.Contains(string(data), `"delay":"0s"`) || !strings.Contains(string(data), `"max_pages":1000`) {
		t.Errorf("written in another format: %s", data)
	}
}

// missingKeys reports the settings of struct type typ (its fields with a json
// name, nested structs included) that have no key in have.
func missingKeys(t *testing.T, typ reflect.Type, have map[string]any, path string) {
	t.Helper()
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			t.Errorf("%s.%s has no json tag", typ, f.Name)
			continue
		}
		v, ok := have[name]
		if !ok {
			t.Errorf("the example lacks %s%s (%s.%s)", path, name, typ.Name(), f.Name)
		}
		if nested, isObject := v.(map[string]any); isObject && f.Type.Kind() == reflect.Struct {
			missingKeys(t, f.Type, nested, path+name+".")
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Options{Seeds: []string{"https://intra.example/"}}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string // "" means valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"no delay", func(o *Options) { o.Delay = -1 }, ""},
		{"ftp seed", func(o *Options) { o.Seeds = []string{"ftp://x/"} }, `seeds: "ftp://x/" is not an absolute http, https, file or smb URL`},
		{"relative seed", func(o *Options) { o.Seeds = []string{"intranet/"} }, "not an absolute http, https, file or smb URL"},
		{"negative pages", func(o *Options) { o.MaxPages = -5 }, "max_pages must not be negative, not -5"},
		{"negative parallelism", func(o *Options) { o.Parallelism = -1 }, "parallelism must not be negative"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "timeout must not be negative"},
		{"negative trap rule", func(o *Options) { o.Traps.MaxSegments = -1 }, "MaxSegments must not be negative"},
		{"unknown policy", func(o *Options) { o.Policy = 7 }, "policy:"},
		{"exclude pattern", func(o *Options) { o.Exclude = []string{`[?&]action=edit`, `/Special:`} }, ""},
		{"bad exclude pattern", func(o *Options) { o.Exclude = []string{`/ok/`, `(edit`} }, `exclude: pattern "(edit"`},
		{"empty exclude pattern", func(o *Options) { o.Exclude = []string{""} }, "exclude: an empty pattern"},
		{"negative family bound", func(o *Options) { o.Traps.MaxUselessPerFamily = -1 }, "MaxUselessPerFamily must not be negative"},
		{"unknown similarity", func(o *Options) { o.Similarity = 9 }, "similarity: unknown"},
		{"group rule without prefix", func(o *Options) { o.Groups = []GroupRule{{Groups: []string{"hr"}}} }, "groups[0]: a rule needs a prefix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			err := o.Validate()
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestOpenWritesNothingForBadOptions: invalid options are refused before
// anything reaches the data directory, so a later run is not stuck with
// them.
func TestOpenWritesNothingForBadOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	for _, o := range []Options{
		{Seeds: []string{"ftp://x/"}},
		{Seeds: []string{"http://127.0.0.1:1/"}, MaxPages: -5},
		{Seeds: []string{"http://127.0.0.1:1/"}, Parallelism: -1},
	} {
		if c, err := Open(dir, o); err == nil {
			c.Close()
			t.Fatalf("Open(%+v) accepted", o)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("Open(%+v) wrote %s", o, dir)
		}
	}
	// A damaged crawl.json is reported, not replaced by defaults.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "crawl.json"), []byte(`{"seeds": ["http://x/"], "max_pagez": 3}`), 0o644)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("Open with a damaged crawl.json: %v", err)
	}
}

// TestOldCrawlJSON: crawl.json files written before Options's json tags
// became the format (by the hand-written config mirror, its own field
// order, "" for a zero duration) read as the options they were written
// from, and are written back with the same keys and values.
func TestOldCrawlJSON(t *testing.T) {
	none := Options{Seeds: []string{"https://x.example/"}, Delay: -1, Revisit: RevisitOptions{Sitemaps: -1}, Exclude: []string{"/a"}}
	full := none
	full.EnsureDefaults()
	full.Revisit.MinInterval = 90 * time.Minute
	for _, tc := range []struct {
		name    string
		written string // by main 23e1196's Options.MarshalJSON
		want    Options
	}{
		{"not defaulted", `{"seeds":["https://x.example/"],"allowed_hosts":null,"allowed_prefixes":null,"exclude":["/a"],"fetch_views":false,"follow_links_outside":false,"max_depth":0,"max_pages":0,"ignore_robots":false,"delay":"0s","parallelism":0,"host_parallelism":0,"timeout":"","max_retries":0,"retry_backoff":"","revisit":{"policy":"","budget":0,"min_interval":"","max_interval":"","prior":"","copy_factor":0,"trivial_bits":0,"sitemaps":"0s"},"refresh_interval":"","max_body_bytes":0,"max_document_bytes":0,"max_links_per_page":0,"prefer_documents":false,"user_agent":"","max_redirects":0,"traps":{"max_per_template":0,"max_duplicates_per_template":0,"max_segments":0,"max_repeats":0,"max_url_length":0,"demote_useless_after":0,"max_useless_per_family":0},"drop_params":null,"policy":"skip","similarity":"resemblance","language":"","groups":null,"no_dedup":false}`, none},
		{"defaulted", `{"seeds":["https://x.example/"],"allowed_hosts":["x.example"],"allowed_prefixes":null,"exclude":["/a"],"fetch_views":false,"follow_links_outside":false,"max_depth":10,"max_pages":100000,"ignore_robots":false,"delay":"0s","parallelism":2,"host_parallelism":2,"timeout":"10s","max_retries":3,"retry_backoff":"10s","revisit":{"policy":"adaptive","budget":10,"min_interval":"1h30m0s","max_interval":"720h0m0s","prior":"24h0m0s","copy_factor":4,"trivial_bits":3,"sitemaps":"0s"},"refresh_interval":"10s","max_body_bytes":5242880,"max_document_bytes":52428800,"max_links_per_page":10000,"prefer_documents":false,"user_agent":"DoppelBot/1.0","max_redirects":5,"traps":{"max_per_template":0,"max_duplicates_per_template":20,"max_segments":12,"max_repeats":3,"max_url_length":1024,"demote_useless_after":5,"max_useless_per_family":20},"drop_params":null,"policy":"skip","similarity":"resemblance","language":"","groups":null,"no_dedup":false}`, full},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tc.written))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("read %+v, %v; want %+v", got, err, tc.want)
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var before, after map[string]any
			if err := json.Unmarshal([]byte(tc.written), &before); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &after); err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Errorf("written with %d keys, before %d: %s", len(after), len(before), data)
			}
			back, err := ParseConfig(data)
			if err != nil || !reflect.DeepEqual(back, tc.want) {
				t.Errorf("rewritten %s reads %+v, %v", data, back, err)
			}
		})
	}
}
