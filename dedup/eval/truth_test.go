package eval

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

const pairFile = `{"a":"d1","b":"d2","jaccard":0.95,"cosine":0.97}
{"a":"d1","b":"d3","jaccard":0.5,"cosine":0.91}

{"a":"d4","b":"d2","jaccard":0.85,"cosine":0.8,"extra":"ignored"}
{"a":"d5","b":"d6","jaccard":0.92,"cosine":0}
`

var pairFilePairs = []LabeledPair{
	{"d1", "d2", 0.95, 0.97},
	{"d1", "d3", 0.5, 0.91},
	{"d4", "d2", 0.85, 0.8},
	{"d5", "d6", 0.92, 0},
}

func TestLoadPairs(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(pairFile))
	zw.Close()
	for name, input := range map[string][]byte{"plain": []byte(pairFile), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			truth, err := LoadPairs(bytes.NewReader(input))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(truth.Pairs(), pairFilePairs) {
				t.Errorf("got %v, want %v", truth.Pairs(), pairFilePairs)
			}
		})
	}
}

func TestLoadPairsErrors(t *testing.T) {
	good := `{"a":"x","b":"y","jaccard":0.9,"cosine":0.9}` + "\n"
	for _, tc := range []struct {
		name, input string
		want        error
		line        string // expected in the message
	}{
		{"not JSON", good + "{oops\n", ErrMalformed, "line 2:"},
		{"not an object", "[1,2]\n", ErrMalformed, "line 1:"},
		{"wrong type", `{"a":1,"b":"y","jaccard":0.9,"cosine":0.9}`, ErrMalformed, "line 1:"},
		{"missing b and cosine", good + "\n" + `{"a":"x","jaccard":0.9}`, ErrMalformed, `line 3: eval: malformed pair: missing "b", "cosine"`},
		{"empty id", `{"a":"","b":"y","jaccard":0.9,"cosine":0.9}`, ErrMalformed, "line 1:"},
		{"self pair", `{"a":"y","b":"y","jaccard":1,"cosine":1}`, ErrMalformed, "line 1:"},
		{"jaccard above 1", `{"a":"x","b":"y","jaccard":1.5,"cosine":0.9}`, ErrMalformed, "line 1:"},
		{"negative cosine", `{"a":"x","b":"y","jaccard":0.9,"cosine":-0.1}`, ErrMalformed, "line 1:"},
		{"duplicate", good + good, ErrDuplicatePair, "line 2: eval: pair listed twice"},
		{"duplicate reversed", good + "\n" + `{"a":"y","b":"x","jaccard":0.9,"cosine":0.9}`, ErrDuplicatePair, "(first on line 1)"},
		{"line too long", good + `{"a":"` + strings.Repeat("x", MaxLineBytes) + `"}`, ErrMalformed, "line 2:"},
		{"bad gzip", "\x1f\x8b garbage", gzip.ErrHeader, "eval:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadPairs(strings.NewReader(tc.input))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.line) {
				t.Errorf("error %q does not contain %q", err, tc.line)
			}
		})
	}
}

// failingReader returns its data, then an error.
type failingReader struct{ data io.Reader }

var errDisk = errors.New("disk on fire")

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

func TestLoadPairsReadError(t *testing.T) {
	_, err := LoadPairs(failingReader{strings.NewReader(pairFile)})
	if !errors.Is(err, errDisk) {
		t.Fatalf("got %v, want %v", err, errDisk)
	}
}

func TestWriteToRoundTrip(t *testing.T) {
	pairs := append(slices.Clone(pairFilePairs),
		LabeledPair{"q\"uote", "ünïcode\n", 1.0 / 3, 0.1 + 0.2},
		LabeledPair{"tiny", "one", 5e-324, 1})
	truth, err := NewTruth(pairs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := truth.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	if got := strings.Count(buf.String(), "\n"); got != len(pairs) {
		t.Errorf("%d lines, want %d", got, len(pairs))
	}
	back, err := LoadPairs(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Pairs(), pairs) {
		t.Errorf("round trip: got %v, want %v", back.Pairs(), pairs)
	}
}

// shortWriter fails after a few bytes.
type shortWriter struct{ left int }

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errDisk
	}
	w.left -= len(p)
	return len(p), nil
}

func TestWriteToError(t *testing.T) {
	truth, _ := NewTruth(pairFilePairs)
	if _, err := truth.WriteTo(&shortWriter{left: 10}); !errors.Is(err, errDisk) {
		t.Errorf("got %v, want %v", err, errDisk)
	}
}

func TestNewTruthErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pairs []LabeledPair
		want  error
	}{
		{"self pair", []LabeledPair{{"a", "a", 1, 1}}, ErrMalformed},
		{"empty id", []LabeledPair{{"a", "", 1, 1}}, ErrMalformed},
		{"NaN", []LabeledPair{{"a", "b", 1, math.NaN()}}, ErrMalformed},
		{"duplicate", []LabeledPair{{"a", "b", 1, 1}, {"c", "d", 1, 1}, {"b", "a", 1, 1}}, ErrDuplicatePair},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewTruth(tc.pairs); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	truth, _ := NewTruth(pairFilePairs)
	for _, tc := range []struct {
		a, b string
		ok   bool
	}{{"d1", "d2", true}, {"d2", "d1", true}, {"d2", "d4", true}, {"d1", "d4", false}, {"d1", "d1", false}} {
		p, ok := truth.Lookup(tc.a, tc.b)
		if ok != tc.ok || ok && NewPair(p.A, p.B) != NewPair(tc.a, tc.b) {
			t.Errorf("Lookup(%s, %s) = %v, %v", tc.a, tc.b, p, ok)
		}
	}
	if truth.Len() != len(pairFilePairs) {
		t.Errorf("Len = %d", truth.Len())
	}
}

func TestPositives(t *testing.T) {
	truth, _ := NewTruth(pairFilePairs)
	for _, tc := range []struct {
		def       Definition
		threshold float64
		want      []Pair
	}{
		{Resemblance, 0.9, []Pair{{"d1", "d2"}, {"d5", "d6"}}},
		{Resemblance, 0.92, []Pair{{"d1", "d2"}, {"d5", "d6"}}}, // >=
		{Resemblance, 0.8, []Pair{{"d1", "d2"}, {"d2", "d4"}, {"d5", "d6"}}},
		{Cosine, 0.9, []Pair{{"d1", "d2"}, {"d1", "d3"}}},
		{Cosine, 0.8, []Pair{{"d1", "d2"}, {"d1", "d3"}, {"d2", "d4"}}},
		{Either, 0.9, []Pair{{"d1", "d2"}, {"d1", "d3"}, {"d5", "d6"}}},
		{Either, 0.96, []Pair{{"d1", "d2"}}},
		{Either, 0.98, []Pair{}},
		{Definition(7), 0, []Pair{{"d1", "d2"}, {"d1", "d3"}, {"d2", "d4"}, {"d5", "d6"}}}, // similarity 0 >= 0
	} {
		t.Run(fmt.Sprintf("%v/%v", tc.def, tc.threshold), func(t *testing.T) {
			if got := truth.Positives(tc.def, tc.threshold).Sorted(); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	for _, d := range []Definition{Resemblance, Cosine, Either} {
		got, err := ParseDefinition(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDefinition(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDefinition("jaccard"); err == nil || !strings.Contains(err.Error(), "resemblance, cosine, either") {
		t.Errorf("ParseDefinition(jaccard): %v", err)
	}
	if s := Definition(9).String(); s != "Definition(9)" {
		t.Errorf("String of unknown = %q", s)
	}
	p := LabeledPair{"a", "b", 0.4, 0.7}
	for def, want := range map[Definition]float64{Resemblance: 0.4, Cosine: 0.7, Either: 0.7, -1: 0} {
		if got := p.Similarity(def); got != want {
			t.Errorf("Similarity(%v) = %v, want %v", def, got, want)
		}
	}
}

// FuzzLoadPairs checks that LoadPairs never panics, that every error names
// an existing line, and that what loads writes back and loads the same.
func FuzzLoadPairs(f *testing.F) {
	f.Add(pairFile)
	f.Add(`{"a":"x","b":"y","jaccard":0.9,"cosine":0.9}` + "\n" + `{"a":"y","b":"x","jaccard":0.9,"cosine":0.9}`)
	f.Add(`{"a":"x","b":"y","jaccard":1e400}`)
	f.Add("\n\n{}\n")
	f.Add("\x1f\x8b\x08")
	f.Fuzz(func(t *testing.T, input string) {
		truth, err := LoadPairs(strings.NewReader(input))
		if err != nil {
			if strings.HasPrefix(input, "\x1f\x8b") {
				return // gzip errors have no line
			}
			var line int
			msg := err.Error()
			if _, scanErr := fmt.Sscanf(msg, "eval: line %d:", &line); scanErr != nil {
				t.Fatalf("error %q names no line", msg)
			}
			if lines := strings.Count(input, "\n") + 1; line < 1 || line > lines {
				t.Fatalf("error %q names line %d of %d", msg, line, lines)
			}
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrDuplicatePair) {
				t.Fatalf("error %q wraps no sentinel", msg)
			}
			return
		}
		var buf bytes.Buffer
		if _, err := truth.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := LoadPairs(&buf)
		if err != nil {
			t.Fatalf("reloading %q: %v", buf.String(), err)
		}
		if !slices.Equal(back.Pairs(), truth.Pairs()) {
			t.Fatalf("round trip changed %v to %v", truth.Pairs(), back.Pairs())
		}
	})
}
