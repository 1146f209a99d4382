package dedup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestSketchKeptOnlyWhenRead: a document's MinHash sketch stays in
// memory only for the methods that compare sketches; under exact
// verification (the default hybrid) its set is all that is kept of it,
// its band keys computed again from the set when needed.
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
		if got := rec.sketch() != nil; got != tc.sketch {
			t.Errorf("%s: sketch kept %v, want %v", tc.name, got, tc.sketch)
		}
		if tc.name == "hybrid, exact" && (len(rec.set) == 0 || len(d.bandsOf(rec)) == 0 || rec.more != nil) {
			t.Errorf("%s: set %d, bands %d (%d kept); want a set and band keys computed from it", tc.name, len(rec.set), len(d.bandsOf(rec)), len(rec.bands()))
		}
	}
}

// TestSetsOnDisk: with the verification sets in a file (SetsDir, or a
// temporary file once they pass SetsMemory), adds, new versions,
// removals and a re-clustering give exactly the clusters they give with
// the sets in memory, and no record keeps its set.
func TestSetsOnDisk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("budget travel payroll canteen contract printer network badge office pension leave holiday laptop server backup policy meeting invoice project training")
	text := func() string {
		var b strings.Builder
		for range 80 + r.IntN(80) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	var docs []Document
	for i := range 300 {
		body := text()
		docs = append(docs, Document{ID: fmt.Sprint("d", i), Text: body})
		if r.IntN(3) == 0 { // a copy with an edit
			w := strings.Fields(body)
			w[r.IntN(len(w))] = "zebra"
			docs = append(docs, Document{ID: fmt.Sprint("d", i, "c"), Text: strings.Join(w, " ")})
		}
	}
	run := func(opts Options) []Assignment {
		d, err := New(nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range docs {
			if _, err := d.Add(doc); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < len(docs); i += 7 {
			if _, err := d.Replace(Document{ID: docs[i].ID, Text: docs[i].Text + " revised"}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 3; i < len(docs); i += 11 {
			if _, err := d.Remove(docs[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Recluster(context.Background()); err != nil {
			t.Fatal(err)
		}
		kept := 0
		for _, rec := range d.docs {
			if rec != nil && rec.set != nil {
				kept++
			}
		}
		if onDisk := opts.SetsDir != "" || opts.SetsMemory > 0; onDisk && kept > 0 {
			t.Errorf("%+v: %d documents keep their set in memory", opts, kept)
		} else if !onDisk && kept == 0 {
			t.Errorf("%+v: no document keeps its set in memory", opts)
		}
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		return d.Assignments()
	}
	mem := run(Options{SetsMemory: -1})
	for _, opts := range []Options{
		{SetsDir: t.TempDir()},
		{SetsMemory: 4096}, // past the bound after a few documents: the sets move to a temporary file
		{},                 // the default bound, never reached here: in memory
	} {
		if got := run(opts); fmt.Sprint(mem) != fmt.Sprint(got) {
			t.Errorf("%+v: clusters differ from those with the sets in memory", opts)
		}
	}
	size := map[any]int{}
	joined := 0
	for _, a := range mem {
		if size[a.Cluster]++; size[a.Cluster] == 2 {
			joined++
		}
	}
	if joined < 10 {
		t.Fatalf("%d clusters with copies among %d assignments: too few to compare", joined, len(mem))
	}
}

// TestSetsMemoryNoTempDir: when the temporary file cannot be made, the
// sets stay in memory, the clusters are still found, and every Insert
// past the bound says why.
func TestSetsMemoryNoTempDir(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	d, err := New(nil, Options{SetsMemory: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	text := strings.Repeat("the quarterly budget review covers travel, payroll and the canteen contract ", 20)
	res, err := d.Add(Document{ID: "a", Text: text})
	if err == nil || !strings.Contains(err.Error(), "TMPDIR") {
		t.Fatalf("first add past the bound: %v, want an error naming TMPDIR", err)
	}
	if _, err2 := d.Add(Document{ID: "b", Text: text + " again"}); err2 == nil {
		t.Error("the second add did not report the error")
	}
	if got := d.Assignments(); len(got) != 2 || got[0].Cluster != got[1].Cluster || res.Cluster != got[0].Cluster {
		t.Errorf("assignments %+v: want a and b in one cluster", got)
	}
	if d.sets != nil || d.docs[0].set == nil {
		t.Error("the sets did not stay in memory")
	}
}
