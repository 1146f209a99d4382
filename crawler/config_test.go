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
