package dedup

import (
	"strings"
	"testing"
)

// TestSketchKeptOnlyWhenRead: a document's MinHash sketch stays in
// memory only for the methods that compare sketches; under exact
// verification (the default hybrid) its band keys and set are all that
// is kept of it.
func TestSketchKeptOnlyWhenRead(t *testing.T) {
	text := strings.Repeat("the quarterly budget review covers travel, payroll and the canteen contract ", 20)
	for _, tc := range []struct {
		name   string
		opts   Options
		sketch bool
	}{
		{"hybrid, exact", Options{}, false},
		{"hybrid, estimate", Options{Verify: Estimate}, true},
		{"minhash", Options{Method: MinHash}, true},
	} {
		d, err := New(nil, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Add(Document{ID: "a", Text: text}); err != nil {
			t.Fatal(err)
		}
		rec := d.docs[d.byID["a"]]
		if got := rec.sketch != nil; got != tc.sketch {
			t.Errorf("%s: sketch kept %v, want %v", tc.name, got, tc.sketch)
		}
		if tc.name == "hybrid, exact" && (len(rec.set) == 0 || len(rec.bands) == 0) {
			t.Errorf("%s: set %d, bands %d; want both", tc.name, len(rec.set), len(rec.bands))
		}
	}
}
