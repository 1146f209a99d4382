package crawler

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page"
)

// gatedStore is a page store whose commits wait for gate, counting the
// records of each.
type gatedStore struct {
	*pages.Store
	gate    chan struct{}
	commits chan int // records per commit
}

func (s gatedStore) Commit(b *pages.Batch) ([]pages.Record, error) {
	<-s.gate
	stored, err := s.Store.Commit(b)
	s.commits <- b.Len()
	return stored, err
}

// TestRecordWriterTogether checks that the batches handed to the record
// writer while it commits one are committed next in one transaction, that
// every URL is marked done once, and that the records are stored as
// handed in.
func TestRecordWriterTogether(t *testing.T) {
	st, err := pages.Open(filepath.Join(t.TempDir(), "pages.db"), pages.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	gs := gatedStore{Store: st, gate: make(chan struct{}), commits: make(chan int, 10)}
	w := newRecordWriter(gs, 0)
	hand := func(names ...string) {
		var b pages.Batch
		var done []doneMark
		for _, n := range names {
			u := "http://x/" + n
			b.Put(pages.Record{Page: page.Page{URL: u, Text: n}, Status: pages.Fetched})
			done = append(done, doneMark{url: u})
		}
		w.write(b, done)
	}
	hand("a")
	// The first commit waits at the gate; the next batches queue meanwhile.
	hand("b", "c")
	hand("a", "d")
	hand("e")
	if got := w.unwrittenOf([]string{"http://x/a", "http://x/d", "http://x/z"}); fmt.Sprint(got) != "[true true false]" {
		t.Fatalf("unwrittenOf = %v", got)
	}
	close(gs.gate) // every commit may go on
	rev, err := w.wait()
	if err != nil {
		t.Fatal(err)
	}
	w.close()
	close(gs.commits)
	var commits []int
	for n := range gs.commits {
		commits = append(commits, n)
	}
	// The first batch alone (the writer had taken it before the others
	// came), or — if the writer took it after all four were handed in —
	// all four together.
	if !slices.Equal(commits, []int{1, 5}) && !slices.Equal(commits, []int{6}) {
		t.Errorf("commits of %v records, want [1 5] (or [6])", commits)
	}
	if rev != 6 {
		t.Errorf("last revision %d, want 6", rev)
	}
	done, _ := w.takeDone()
	var urls []string
	for _, d := range done {
		urls = append(urls, d.url)
	}
	if want := []string{"http://x/a", "http://x/b", "http://x/c", "http://x/a", "http://x/d", "http://x/e"}; !slices.Equal(urls, want) {
		t.Errorf("marked done %q, want %q", urls, want)
	}
	if got := w.unwrittenOf([]string{"http://x/a", "http://x/e"}); fmt.Sprint(got) != "[false false]" {
		t.Errorf("unwrittenOf after the commits = %v", got)
	}
	for n, want := range map[string]string{"a": "a", "d": "d", "e": "e"} {
		r, ok, err := st.Get("http://x/" + n)
		if err != nil || !ok || r.Text != want {
			t.Errorf("record of %s: %+v, %v, %v", n, r, ok, err)
		}
	}
}
