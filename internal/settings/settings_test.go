package settings

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// level is a text-marshalled enum, as indexer.Policy is.
type level int

func (l level) MarshalText() ([]byte, error) {
	if l < 0 || l > 1 {
		return nil, fmt.Errorf("unknown level %d", int(l))
	}
	return []byte([]string{"low", "high"}[l]), nil
}

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 0
	case "high":
		*l = 1
	default:
		return fmt.Errorf("unknown level %q (want low or high)", b)
	}
	return nil
}

type rule struct {
	Prefix string `json:"prefix"`
}

type inner struct {
	Every time.Duration `json:"every" zero:"none"`
	Count int           `json:"count" flag:"count" help:"inner count"`
}

type opts struct {
	Names   []string      `json:"names" flag:"name" help:"a {NAME} (repeatable)"`
	Extra   []string      `json:"extra" flag:"extra,append" help:"adds"`
	Pause   time.Duration `json:"pause" zero:"none" flag:"pause" help:"pause (0: none)"`
	Timeout time.Duration `json:"timeout" flag:"timeout" help:"timeout"`
	Max     int           `json:"max" flag:"max" help:"most"`
	Ratio   float64       `json:"ratio" flag:"ratio" help:"ratio"`
	On      bool          `json:"on" flag:"on" help:"on"`
	Agent   string        `json:"agent" flag:"agent" help:"agent"`
	Level   level         `json:"level" choices:"low high" flag:"level" help:"low or high"`
	Rules   []rule        `json:"rules"`
	Inner   inner         `json:"inner"`
	Secret  string        `json:"-"`
	Shards  int           `json:"-" flag:"shards" help:"not in the file"`
}

// TestRoundTrip: what Marshal writes, Unmarshal reads back to the same
// struct, durations as Go duration strings in the order of the fields.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   opts
		has  []string // substrings of the JSON written
	}{
		{"zero", opts{}, []string{`"pause":""`, `"names":null`, `"level":"low"`, `"inner":{"every":"","count":0}`}},
		{"none", opts{Pause: -1, Inner: inner{Every: -1}}, []string{`"pause":"0s"`, `"every":"0s"`}},
		{"values", opts{Names: []string{"a", "b"}, Pause: 1500 * time.Millisecond, Timeout: time.Hour, Max: 7, Ratio: 0.5,
			On: true, Agent: "x", Level: 1, Rules: []rule{{"p"}}, Inner: inner{Every: 90 * time.Minute, Count: 3}},
			[]string{`{"names":["a","b"],"extra":null,"pause":"1.5s","timeout":"1h",`, `"level":"high"`, `"every":"1h30m"`, `"rules":[{"prefix":"p"}]`}},
		{"minutes", opts{Timeout: 2 * time.Minute, Pause: 1500 * time.Millisecond}, []string{`"timeout":"2m"`}},
		{"negative, not none", opts{Timeout: -time.Second}, []string{`"timeout":"-1s"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.has {
				if !strings.Contains(string(data), s) {
					t.Errorf("written %s; want it to contain %s", data, s)
				}
			}
			if strings.Contains(string(data), "secret") || strings.Contains(string(data), "shards") {
				t.Errorf("a json:\"-\" field is written: %s", data)
			}
			var back opts
			if err := Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, tc.in) {
				t.Errorf("read back %+v, %v; want %+v (from %s)", back, err, tc.in, data)
			}
			if !json.Valid(data) {
				t.Errorf("not JSON: %s", data)
			}
		})
	}
}

// TestUnmarshal: what each key sets, and the errors, each naming the
// field by its path.
func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     opts
		err      string // "" means no error; else a substring of it
	}{
		{"absent keys keep the zero", `{}`, opts{}, ""},
		{"explicit zero is none", `{"pause": "0s", "timeout": "0s", "inner": {"every": "0s"}}`, opts{Pause: -1, Inner: inner{Every: -1}}, ""},
		{"empty string is the default", `{"pause": ""}`, opts{}, ""},
		{"null nested object", `{"inner": null}`, opts{}, ""},
		{"keys match ignoring case", `{"Max": 3}`, opts{Max: 3}, ""},
		{"durations", `{"pause": "250ms", "inner": {"every": "2h"}}`, opts{Pause: 250 * time.Millisecond, Inner: inner{Every: 2 * time.Hour}}, ""},
		{"text enum", `{"level": "high"}`, opts{Level: 1}, ""},
		{"unknown key", `{"maxx": 3}`, opts{}, `unknown field "maxx"`},
		{"unknown nested key", `{"inner": {"cnt": 3}}`, opts{}, `unknown field "inner.cnt"`},
		{"json:\"-\" is unknown", `{"shards": 3}`, opts{}, `unknown field "shards"`},
		{"duration as a number", `{"pause": 100}`, opts{}, `pause must be a Go duration string such as "250ms", not a number`},
		{"duration without a unit", `{"timeout": "10"}`, opts{}, `timeout: "10" is not a Go duration such as "250ms"`},
		{"nested duration", `{"inner": {"every": "soon"}}`, opts{}, `inner.every: "soon" is not a Go duration`},
		{"wrong type", `{"inner": {"count": "3"}}`, opts{}, "inner.count must be int, not a string"},
		{"enum as a number", `{"level": 1}`, opts{}, `level must be "low" or "high", not a number`},
		{"unknown enum value", `{"level": "mid"}`, opts{}, `level: unknown level "mid" (want low or high)`},
		{"unknown key in a slice element", `{"rules": [{"prefx": "p"}]}`, opts{}, `rules: json: unknown field "prefx"`},
		{"nested object of the wrong type", `{"inner": 3}`, opts{}, "inner must be a JSON object, not a number"},
		{"not an object", `[1]`, opts{}, "the configuration must be a JSON object, not an array"},
		{"empty", "  ", opts{}, "empty file"},
		{"data after the object", `{} {}`, opts{}, "unexpected data after the JSON object"},
		{"syntax error", `{"max": }`, opts{}, "invalid character"},
		{"every error is reported", `{"max": "x", "zzz": 1}`, opts{}, `max must be int, not a string` + "\n" + `unknown field "zzz"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got opts
			err := Unmarshal([]byte(tc.in), &got)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v; want %q", err, tc.err)
			case tc.err == "" && !reflect.DeepEqual(got, tc.want):
				t.Errorf("read %+v; want %+v", got, tc.want)
			}
		})
	}
	if err := Unmarshal([]byte(`{}`), opts{}); err == nil {
		t.Error("Unmarshal into a struct, not a pointer: no error")
	}
	if _, err := Marshal(3); err == nil {
		t.Error("Marshal of an int: no error")
	}
}

// TestFlags: the flags a struct's tags declare, with their help, and the
// precedence: a flag set on the command line overrides what dst holds
// (a file's settings), which overrides the zero (the default).
func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Register[opts](fs)
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	if want := "agent count extra level max name on pause ratio shards timeout"; strings.Join(names, " ") != want {
		t.Errorf("flags %v; want %s", names, want)
	}
	if name, usage := flag.UnquoteUsage(fs.Lookup("name")); name != "NAME" || usage != "a NAME (repeatable)" {
		t.Errorf("--name's placeholder %q, usage %q", name, usage)
	}
	for _, c := range []struct{ flag, kind string }{{"max", "int"}, {"pause", "duration"}, {"agent", "string"}, {"level", "string"}, {"ratio", "float"}, {"on", ""}} {
		if name, _ := flag.UnquoteUsage(fs.Lookup(c.flag)); name != c.kind {
			t.Errorf("--%s shown as %q, want %q", c.flag, name, c.kind)
		}
	}

	file := opts{Names: []string{"file"}, Extra: []string{"f"}, Max: 5, Agent: "file", Pause: time.Second, Inner: inner{Count: 2}}
	for _, tc := range []struct {
		name string
		args []string
		want func(*opts)
		err  string
	}{
		{"no flags: the file's", nil, func(*opts) {}, ""},
		{"flags override", []string{"--max", "9", "--agent", "cli", "--on", "--ratio", "0.25", "--shards", "4", "--timeout", "3s"}, func(o *opts) {
			o.Max, o.Agent, o.On, o.Ratio, o.Shards, o.Timeout = 9, "cli", true, 0.25, 4, 3*time.Second
		}, ""},
		{"a nested field's flag", []string{"--count", "8"}, func(o *opts) { o.Inner.Count = 8 }, ""},
		{"repeatable replaces", []string{"--name", "a", "--name", "b"}, func(o *opts) { o.Names = []string{"a", "b"} }, ""},
		{"append adds", []string{"--extra", "x"}, func(o *opts) { o.Extra = []string{"f", "x"} }, ""},
		{"zero is none", []string{"--pause", "0"}, func(o *opts) { o.Pause = -1 }, ""},
		{"a zero flag overrides the file", []string{"--max", "0"}, func(o *opts) { o.Max = 0 }, ""},
		{"text enum", []string{"--level", "high"}, func(o *opts) { o.Level = 1 }, ""},
		{"bad text enum", []string{"--level", "mid"}, nil, `--level: unknown level "mid"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			f := Register[opts](fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := file
			got.Names, got.Extra = append([]string(nil), file.Names...), append([]string(nil), file.Extra...)
			err := f.Apply(&got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Apply: %v; want %q", err, tc.err)
				}
				return
			}
			want := file
			tc.want(&want)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Apply: %+v, %v; want %+v", got, err, want)
			}
		})
	}
	if err := f.Apply(&opts{}); err != nil {
		t.Errorf("Apply before Parse: %v", err)
	}
}

// TestRegisterRefusesUnknownTypes: a flag tag on a type the package
// cannot read is a programming error, found at once.
func TestRegisterRefusesUnknownTypes(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "the flag m") {
			t.Errorf("recovered %v; want a panic naming the flag", r)
		}
	}()
	Register[struct {
		M map[string]int `flag:"m"`
	}](flag.NewFlagSet("t", flag.ContinueOnError))
}

// pair is read by a parser given to Register, as web.ShareLink is.
type pair struct{ K, V string }

func parsePair(s string) (pair, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return pair{}, fmt.Errorf("%q is not K=V", s)
	}
	return pair{k, v}, nil
}

// checked is read by a parser as its flag is set.
type checked pair

// Common is embedded: its fields are the file's and the flags' own.
type Common struct {
	Addr string `json:"addr" flag:"addr" help:"listen {address}"`
}

type served struct {
	Common
	Groups []string      `json:"groups" flag:"groups" sep:"," help:"{groups}, comma-separated"`
	Levels []level       `json:"levels" flag:"levels" sep:"," help:"levels"`
	Pairs  []pair        `json:"pairs" flag:"pair" help:"a {K=V} (repeatable)"`
	Checks []checked     `json:"checks" flag:"check" help:"checked as set"`
	One    pair          `json:"one" flag:"one" help:"one pair"`
	Every  time.Duration `json:"every" flag:"every" help:"every"`
	N      int           `json:"n" flag:"n" help:"n"`
	Level  level         `json:"level" flag:"level" help:"level"`
	On     bool          `json:"on" flag:"on" help:"on"`
}

// servedDefaults are the defaults of the served flags in the tests.
var servedDefaults = served{Common: Common{Addr: "127.0.0.1:80"}, Groups: []string{"a", "b"}, Every: time.Second, N: 3, Level: 1, On: true}

// registerServed registers served's flags in fs, with servedDefaults and
// parsers of pairs (read on Apply) and checked pairs (read as set).
func registerServed(fs *flag.FlagSet) *Flags {
	return Register[served](fs, Defaults(servedDefaults), Parse(parsePair),
		ParseOnSet(func(s string) (checked, error) { p, err := parsePair(s); return checked(p), err }))
}

// TestDefaultsShown: -h shows the defaults given with Defaults, a text
// enum's as its text, a list's joined.
func TestDefaultsShown(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	registerServed(fs)
	for name, want := range map[string]string{"addr": "127.0.0.1:80", "groups": "a,b", "every": "1s", "n": "3", "level": "high", "on": "true", "pair": "", "one": ""} {
		if got := fs.Lookup(name).DefValue; got != want {
			t.Errorf("--%s's default %q; want %q", name, got, want)
		}
	}
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	for _, want := range []string{`-addr address`, `(default "127.0.0.1:80")`, `-groups groups`, `(default a,b)`, `-pair K=V`} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, help.String())
		}
	}
}

// TestParsers: Register's parsers (read on Apply or as the flag is set),
// sep lists and an embedded struct, over the defaults.
func TestParsers(t *testing.T) {
	def := servedDefaults
	for _, tc := range []struct {
		name     string
		args     []string
		want     func(*served)
		parseErr string // an error of fs.Parse
		applyErr string // an error of Apply
	}{
		{"nothing given: the defaults", nil, func(*served) {}, "", ""},
		{"embedded field", []string{"--addr", ":1"}, func(s *served) { s.Addr = ":1" }, "", ""},
		{"sep splits, blanks dropped, repeats add", []string{"--groups", "x, y,,", "--groups", "z"}, func(s *served) { s.Groups = []string{"x", "y", "z"} }, "", ""},
		{"a list of text enums", []string{"--levels", "low,high"}, func(s *served) { s.Levels = []level{0, 1} }, "", ""},
		{"parsed on Apply", []string{"--pair", "a=1", "--pair", "b=2", "--one", "c=3"}, func(s *served) {
			s.Pairs, s.One = []pair{{"a", "1"}, {"b", "2"}}, pair{"c", "3"}
		}, "", ""},
		{"a bad value for Parse is Apply's error", []string{"--pair", "nope"}, nil, "", `--pair: "nope" is not K=V`},
		{"a bad value for ParseOnSet is a usage error", []string{"--check", "nope"}, nil, `invalid value "nope" for flag -check: "nope" is not K=V`, ""},
		{"explicit zeros override non-zero defaults", []string{"--n", "0", "--every", "0", "--on=false", "--addr", ""}, func(s *served) {
			s.N, s.Every, s.On, s.Addr = 0, 0, false, ""
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			f := registerServed(fs)
			err := fs.Parse(tc.args)
			if tc.parseErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.parseErr) {
					t.Fatalf("Parse: %v; want %q", err, tc.parseErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := def
			got.Groups = slices.Clone(def.Groups)
			err = f.Apply(&got)
			if tc.applyErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.applyErr) {
					t.Fatalf("Apply: %v; want %q", err, tc.applyErr)
				}
				return
			}
			want := def
			want.Groups = slices.Clone(def.Groups)
			tc.want(&want)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Apply: %+v, %v; want %+v", got, err, want)
			}
		})
	}

}

// TestEmbedded: an embedded struct's fields are the file's own.
func TestEmbedded(t *testing.T) {
	in := served{Common: Common{Addr: ":9"}, Groups: []string{"g"}, Pairs: []pair{{"a", "1"}}, Level: 1}
	data, err := Marshal(in)
	if err != nil || !strings.HasPrefix(string(data), `{"addr":":9","groups":["g"]`) {
		t.Fatalf("an embedded struct's fields are not the file's own: %s, %v", data, err)
	}
	var back served
	if err := Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Errorf("read back %+v, %v; want %+v", back, err, in)
	}
	if err := Unmarshal([]byte(`{"Common": {"addr": ":1"}}`), &back); err == nil || !strings.Contains(err.Error(), `unknown field "Common"`) {
		t.Errorf("the embedded struct's name as a key: %v; want unknown", err)
	}
}

// TestDefaultsOfAnotherType: defaults of another type than the one
// registered are a programming error, found at once.
func TestDefaultsOfAnotherType(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "defaults of type") {
			t.Errorf("recovered %v; want a panic naming the defaults", r)
		}
	}()
	Register[served](flag.NewFlagSet("t", flag.ContinueOnError), Defaults(opts{}))
}
