package pages

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/doppel-search/doppel/page"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKillDuringPuts kills a writer process at random moments and checks
// that the store always reopens with a gap-free prefix of the records.
func TestKillDuringPuts(t *testing.T) {
	if os.Getenv("PAGES_WRITER") != "" {
		s, err := Open(os.Getenv("PAGES_WRITER"), Options{})
		if err != nil {
			os.Exit(3)
		}
		for i := 1; ; i++ {
			s.Put(Record{Page: page.Page{URL: "http://x/" + strconv.Itoa(i), Text: "page"}, Status: Fetched})
			if i == 1 {
				fmt.Println("ready") // the parent starts its clock now
			}
		}
	}
	if testing.Short() {
		t.Skip("kills subprocesses; skipped in -short mode")
	}
	path := filepath.Join(t.TempDir(), "pages.db")
	for round, wait := range []time.Duration{30, 80, 150} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringPuts$")
		cmd.Env = append(os.Environ(), "PAGES_WRITER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("round %d: writer never became ready: %v", round, err)
		}
		time.Sleep(wait * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		s := open(t, path)
		var n uint64
		err = s.Each(func(r Record) error {
			n++
			if r.Seq != n || r.URL != "http://x/"+strconv.FormatUint(n, 10) {
				return fmt.Errorf("record %d is %d %s", n, r.Seq, r.URL)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if n == 0 {
			t.Fatalf("round %d: the writer stored nothing in %v", round, wait*time.Millisecond)
		}
		s.Close()
		os.Remove(path) // next round starts fresh so numbering starts at 1
	}
}

func TestWriterExcludesReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	w := open(t, path)
	defer w.Close()
	if _, err := Open(path, Options{ReadOnly: true, Timeout: 50 * time.Millisecond}); err == nil {
		t.Error("a reader opened the store while a writer had it")
	}
}

// A store written before revisions existed (records without "rev", an
// index watermark that is a sequence number) reads Rev = Seq, and new
// revisions come after every old sequence number.
func TestStoreWithoutRevisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		byURL, _ := tx.CreateBucket(bucketByURL)
		bySeq, _ := tx.CreateBucket(bucketBySeq)
		meta, _ := tx.CreateBucket(bucketMeta)
		for i, u := range []string{"http://x/a", "http://x/b"} {
			seq, _ := bySeq.NextSequence()
			if err := bySeq.Put(seqKey(seq), []byte(u)); err != nil {
				return err
			}
			if err := byURL.Put([]byte(u), fmt.Appendf(nil, `{"url":%q,"seq":%d,"status":"fetched"}`, u, i+1)); err != nil {
				return err
			}
		}
		return meta.Put(keyIndexed, seqKey(1))
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	s := open(t, path)
	defer s.Close()
	if r, _, err := s.Get("http://x/b"); err != nil || r.Rev != 2 {
		t.Errorf("old record: rev %d, %v; want its seq, 2", r.Rev, err)
	}
	if r, err := s.Put(Record{Page: page.Page{URL: "http://x/a"}}); err != nil || r.Rev != 3 {
		t.Errorf("first new revision %d, %v; want 3", r.Rev, err)
	}
	if w, err := s.IndexedThrough(); err != nil || w != 1 {
		t.Errorf("watermark %d, %v; want 1", w, err)
	}
}

// The one-write methods (Put, AddAnchors, SetIndexedThrough) are Commit of
// a batch of one write, which the conformance suite covers; this checks the
// wrapping, and Len.
func TestOneWriteMethods(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "pages.db"))
	defer s.Close()
	steps := []struct {
		name string
		do   func() (any, error)
		want string
		err  error
	}{
		{"Put", func() (any, error) {
			r, err := s.Put(Record{Page: page.Page{URL: "http://x/a"}})
			return r.Seq*10 + r.Rev, err
		}, "11", nil},
		{"Put again", func() (any, error) {
			r, err := s.Put(Record{Page: page.Page{URL: "http://x/a"}})
			return r.Seq*10 + r.Rev, err
		}, "12", nil},
		{"Put no URL", func() (any, error) { r, err := s.Put(Record{}); return r.Seq, err }, "0", ErrNoURL},
		{"AddAnchors", func() (any, error) {
			return nil, s.AddAnchors(map[string][]string{"http://x/a": {"A", ""}, "http://x/b": {"B"}})
		}, "<nil>", nil},
		{"Anchors", func() (any, error) { return s.Anchors("http://x/a") }, "[A]", nil},
		{"Anchors b", func() (any, error) { return s.Anchors("http://x/b") }, "[B]", nil},
		{"SetIndexedThrough", func() (any, error) { return nil, s.SetIndexedThrough(2) }, "<nil>", nil},
		{"IndexedThrough", func() (any, error) { return s.IndexedThrough() }, "2", nil},
		{"Put b", func() (any, error) {
			r, err := s.Put(Record{Page: page.Page{URL: "http://x/b"}})
			return r.Seq*10 + r.Rev, err
		}, "23", nil},
		{"Len", func() (any, error) { return s.Len() }, "2", nil},
	}
	for _, st := range steps {
		v, err := st.do()
		if got := fmt.Sprint(v); got != st.want || !errors.Is(err, st.err) || (err == nil) != (st.err == nil) {
			t.Errorf("%s = %s, %v; want %s, %v", st.name, got, err, st.want, st.err)
		}
	}
}

// A read-only store reads everything, refuses writes, and opens beside
// another reader; a missing store does not open read-only.
func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	s := open(t, path)
	var b Batch
	b.Put(Record{Page: page.Page{URL: "http://x/a"}, Status: Fetched, Cluster: "c1"})
	b.AddAnchors("http://x/c", "Home")
	b.SetMaster("c1", "http://x/a")
	b.SetIndexedThrough(1)
	if _, err := s.Commit(&b); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r1, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	defer r2.Close()
	if masters, err := r2.Masters(); err != nil || len(masters) != 1 || masters["c1"] != "http://x/a" {
		t.Errorf("Masters = %v, %v", masters, err)
	}
	if a, _ := r1.Anchors("http://x/c"); !slices.Equal(a, []string{"Home"}) {
		t.Errorf("anchors = %q", a)
	}
	if r, ok, err := r1.Get("http://x/a"); err != nil || !ok || r.Cluster != "c1" {
		t.Errorf("Get = %+v, %v, %v", r, ok, err)
	}
	if seq, _ := r1.IndexedThrough(); seq != 1 {
		t.Errorf("IndexedThrough = %d", seq)
	}
	if _, err := r1.Put(Record{Page: page.Page{URL: "http://x/e"}}); err == nil {
		t.Error("Put on a read-only store succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.db"), Options{ReadOnly: true}); err == nil {
		t.Error("read-only Open of a missing store succeeded")
	}
}

// The Batch's accessors show what it holds: the records in the order put
// (moved ones marked), anchors, masters and the watermark; Validate finds
// a record without URL.
func TestBatchAccessors(t *testing.T) {
	var b Batch
	if !b.Empty() || b.Len() != 0 || b.Validate() != nil {
		t.Fatal("zero Batch not empty and valid")
	}
	b.Put(Record{Page: page.Page{URL: "http://x/a", Text: "1"}})
	b.Move(Record{Page: page.Page{URL: "http://x/b"}})
	b.Put(Record{Page: page.Page{URL: "http://x/a", Text: "2"}})
	b.AddAnchors("http://x/c", "Home", "")
	b.SetMaster("c1", "http://x/a")
	b.SetIndexedThrough(7)
	var writes []string
	for _, w := range b.Writes() {
		writes = append(writes, fmt.Sprint(w.Record.URL, w.Record.Text, w.Move))
	}
	if want := []string{"http://x/a1false", "http://x/btrue", "http://x/a2false"}; !slices.Equal(writes, want) {
		t.Errorf("Writes = %q, want %q", writes, want)
	}
	if got := b.URLs(); !slices.Equal(got, []string{"http://x/a", "http://x/b", "http://x/a"}) {
		t.Errorf("URLs = %q", got)
	}
	if r, ok := b.Pending("http://x/a"); !ok || r.Text != "2" {
		t.Errorf("Pending(a) = %+v, %v; want the last put", r, ok)
	}
	if r := b.Latest("http://x/none"); r != nil {
		t.Errorf("Latest(none) = %+v", r)
	}
	b.Latest("http://x/a").Title = "completed"
	if r, _ := b.Pending("http://x/a"); r.Title != "completed" {
		t.Error("Latest does not point into the batch")
	}
	if got := b.PendingAnchors("http://x/c"); !slices.Equal(got, []string{"Home", ""}) {
		t.Errorf("PendingAnchors = %q", got)
	}
	if got := b.AllAnchors(); len(got) != 1 || !slices.Equal(got["http://x/c"], []string{"Home", ""}) {
		t.Errorf("AllAnchors = %q", got)
	}
	if got := b.Masters(); len(got) != 1 || got["c1"] != "http://x/a" {
		t.Errorf("Masters = %v", got)
	}
	if b.IndexedThrough() != 7 || b.Empty() || b.Validate() != nil {
		t.Errorf("IndexedThrough %d, Empty %v, Validate %v", b.IndexedThrough(), b.Empty(), b.Validate())
	}
	b.Put(Record{})
	if err := b.Validate(); !errors.Is(err, ErrNoURL) {
		t.Errorf("Validate with a record without URL = %v", err)
	}
}

// TestBatchAppend checks that committing a batch with others appended
// stores what committing them one after the other does: the records with
// their sequence and revision numbers (a URL put twice, one moved, one
// put again after a move), the anchor texts (capped at MaxAnchors in the
// order added), the masters (the later one) and the watermark (the last
// one set), and that the batches appended are left as they were.
func TestBatchAppend(t *testing.T) {
	dir := t.TempDir()
	var batches [3]Batch
	b0, b1, b2 := &batches[0], &batches[1], &batches[2]
	b0.Put(Record{Page: page.Page{URL: "http://x/a", Text: "a1"}})
	b0.Put(Record{Page: page.Page{URL: "http://x/b", Text: "b1"}})
	b0.AddAnchors("http://x/c", "Home", "Start")
	b0.SetMaster("c1", "http://x/a")
	b0.SetIndexedThrough(2)
	b1.Move(Record{Page: page.Page{URL: "http://x/a", Text: "a2"}})
	b1.Put(Record{Page: page.Page{URL: "http://x/c", Text: "c1"}})
	for i := range MaxAnchors {
		b1.AddAnchors("http://x/c", fmt.Sprint("text ", i), "Home")
	}
	b1.SetMaster("c1", "http://x/b")
	b1.SetMaster("c2", "http://x/c")
	b2.Put(Record{Page: page.Page{URL: "http://x/a", Text: "a3"}})
	b2.Put(Record{Page: page.Page{URL: "http://x/d", Text: "d1"}})
	b2.AddAnchors("http://x/d", "Docs")

	apart := open(t, filepath.Join(dir, "apart.db"))
	defer apart.Close()
	for i := range batches {
		if _, err := apart.Commit(&batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	var merged Batch
	for i := range batches {
		merged.Append(&batches[i])
	}
	if b0.Len() != 2 || b1.Len() != 2 || b2.Len() != 2 || len(b0.PendingAnchors("http://x/c")) != 2 {
		t.Fatal("Append changed the batches appended")
	}
	together := open(t, filepath.Join(dir, "together.db"))
	defer together.Close()
	stored, err := together.Commit(&merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 6 {
		t.Fatalf("the merged batch stored %d records, want 6", len(stored))
	}
	type state struct {
		records []string
		anchors map[string][]string
		masters map[string]string
		indexed uint64
	}
	read := func(s *Store) state {
		st := state{anchors: map[string][]string{}}
		if err := s.Each(func(r Record) error {
			st.records = append(st.records, fmt.Sprint(r.URL, " ", r.Text, " seq ", r.Seq, " rev ", r.Rev))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"http://x/a", "http://x/c", "http://x/d"} {
			texts, err := s.Anchors(u)
			if err != nil {
				t.Fatal(err)
			}
			st.anchors[u] = texts
		}
		if st.masters, err = s.Masters(); err != nil {
			t.Fatal(err)
		}
		if st.indexed, err = s.IndexedThrough(); err != nil {
			t.Fatal(err)
		}
		return st
	}
	want, got := read(apart), read(together)
	if !slices.Equal(got.records, want.records) {
		t.Errorf("records together:\n%q\napart:\n%q", got.records, want.records)
	}
	if len(want.records) != 4 || want.masters["c1"] != "http://x/b" || want.indexed != 2 || len(want.anchors["http://x/c"]) != MaxAnchors {
		t.Fatalf("the batches committed apart stored %+v: the test's premise is wrong", want)
	}
	for u, texts := range want.anchors {
		if !slices.Equal(got.anchors[u], texts) {
			t.Errorf("anchors of %s together %q, apart %q", u, got.anchors[u], texts)
		}
	}
	if fmt.Sprint(got.masters) != fmt.Sprint(want.masters) || got.indexed != want.indexed {
		t.Errorf("masters and watermark together %v %d, apart %v %d", got.masters, got.indexed, want.masters, want.indexed)
	}
}
