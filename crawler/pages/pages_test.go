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

func TestPutGetEachReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	s := open(t, path)
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, u := range []string{"http://x/c", "http://x/a", "http://x/b"} {
		if _, err := s.Put(Record{Page: page.Page{URL: u, Text: "text of " + u}, Status: Fetched, FetchedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	// Replacing keeps the sequence number.
	r, err := s.Put(Record{Page: page.Page{URL: "http://x/c"}, Status: Skipped, Reason: "near-duplicate"})
	if err != nil || r.Seq != 1 {
		t.Fatalf("re-Put: seq %d, %v; want 1", r.Seq, err)
	}
	// Replacing ignores the caller's sequence number.
	if r, err := s.Put(Record{Page: page.Page{URL: "http://x/a"}, Status: Fetched, FetchedAt: at, Cluster: "c1", Simhash: 7, Seq: 99}); err != nil || r.Seq != 2 {
		t.Fatalf("replacing a: seq %d, %v; want 2", r.Seq, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path)
	defer s.Close()
	var order []string
	err = s.Each(func(r Record) error {
		order = append(order, fmt.Sprintf("%d %s %s", r.Seq, r.URL, r.Status))
		return nil
	})
	want := []string{"1 http://x/c skipped", "2 http://x/a fetched", "3 http://x/b fetched"}
	if err != nil || fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("Each = %v, %v; want %v", order, err, want)
	}
	a, ok, err := s.Get("http://x/a")
	if err != nil || !ok || a.Cluster != "c1" || a.Simhash != 7 || a.Seq != 2 || !a.FetchedAt.Equal(at) {
		t.Errorf("Get after reopen = %+v, %v, %v", a, ok, err)
	}
	if _, ok, _ := s.Get("http://x/none"); ok {
		t.Error("Get of unknown URL found something")
	}
	if n, _ := s.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	stop := errors.New("stop")
	if err := s.Each(func(Record) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Each did not return fn's error: %v", err)
	}
	if _, err := s.Put(Record{}); err == nil {
		t.Error("Put without URL: want error")
	}
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

func TestAnchorsAndIndexedThroughSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	many := make([]string, 0, MaxAnchors+10)
	for i := range MaxAnchors + 10 {
		many = append(many, fmt.Sprintf("text %d", i))
	}
	for _, batch := range []map[string][]string{
		{"http://x/a": {"Manual", "Manual", ""}, "http://x/b": many},
		{"http://x/a": {"User manual", "Manual"}},
	} {
		if err := s.AddAnchors(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetIndexedThrough(42); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.Anchors("http://x/a")
	if err != nil || !slices.Equal(a, []string{"Manual", "User manual"}) {
		t.Errorf("anchors of a = %q, %v; want [Manual, User manual]", a, err)
	}
	if b, _ := s.Anchors("http://x/b"); len(b) != MaxAnchors {
		t.Errorf("anchors of b: %d, want the cap %d", len(b), MaxAnchors)
	}
	if none, _ := s.Anchors("http://x/none"); none != nil {
		t.Errorf("anchors of an unknown URL = %q", none)
	}
	if seq, err := s.IndexedThrough(); err != nil || seq != 42 {
		t.Errorf("IndexedThrough = %d, %v; want 42", seq, err)
	}
}

func TestBatchCommitsTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	s := open(t, path)
	var b Batch
	if !b.Empty() {
		t.Fatal("zero Batch not empty")
	}
	b.Put(Record{Page: page.Page{URL: "http://x/a"}, Status: Fetched, Cluster: "c1"})
	b.Put(Record{Page: page.Page{URL: "http://x/b"}, Status: Skipped, Reason: "trap"})
	b.AddAnchors("http://x/c", "Home", "")
	b.SetMaster("c1", "http://x/a")
	b.SetIndexedThrough(1)
	if got := b.PendingAnchors("http://x/c"); !slices.Equal(got, []string{"Home", ""}) {
		t.Errorf("PendingAnchors = %q", got)
	}
	stored, err := s.Commit(&b)
	if err != nil || len(stored) != 2 || stored[0].Seq != 1 || stored[1].Seq != 2 {
		t.Fatalf("Commit = %+v, %v", stored, err)
	}
	// A batch with a bad record stores nothing of itself.
	var bad Batch
	bad.Put(Record{Page: page.Page{URL: "http://x/d"}, Status: Fetched})
	bad.Put(Record{})
	bad.SetMaster("c2", "http://x/d")
	if _, err := s.Commit(&bad); !errors.Is(err, ErrNoURL) {
		t.Errorf("Commit with an empty URL: %v, want ErrNoURL", err)
	}
	known, err := s.Known([]string{"http://x/a", "http://x/d", "http://x/b"})
	if err != nil || !slices.Equal(known, []bool{true, false, true}) {
		t.Errorf("Known = %v, %v; want [true false true]", known, err)
	}
	s.Close()

	// Read-only: everything is there; writes fail; a second reader may
	// open beside the first.
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
	masters, err := r2.Masters()
	if err != nil || len(masters) != 1 || masters["c1"] != "http://x/a" {
		t.Errorf("Masters = %v, %v", masters, err)
	}
	if a, _ := r1.Anchors("http://x/c"); !slices.Equal(a, []string{"Home"}) {
		t.Errorf("anchors = %q", a)
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

func TestWriterExcludesReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	w := open(t, path)
	defer w.Close()
	if _, err := Open(path, Options{ReadOnly: true, Timeout: 50 * time.Millisecond}); err == nil {
		t.Error("a reader opened the store while a writer had it")
	}
}

// Every Put takes the next revision; Move also takes the next sequence
// number, so Each meets the moved record last; both survive a reopen.
func TestRevisionsAndMove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.db")
	s := open(t, path)
	var b Batch
	for _, u := range []string{"http://x/a", "http://x/b", "http://x/c"} {
		b.Put(Record{Page: page.Page{URL: u}, Status: Fetched})
	}
	stored, err := s.Commit(&b)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range stored {
		if r.Seq != uint64(i+1) || r.Rev != uint64(i+1) {
			t.Errorf("%s: seq %d rev %d; want %d, %d", r.URL, r.Seq, r.Rev, i+1, i+1)
		}
	}
	r, err := s.Put(Record{Page: page.Page{URL: "http://x/a", Text: "again"}, Status: Fetched})
	if err != nil || r.Seq != 1 || r.Rev != 4 {
		t.Errorf("re-Put: seq %d rev %d, %v; want seq 1 rev 4", r.Seq, r.Rev, err)
	}
	b = Batch{}
	b.Move(Record{Page: page.Page{URL: "http://x/b", Text: "changed"}, Status: Fetched})
	b.Put(Record{Page: page.Page{URL: "http://x/b", Text: "changed twice"}, Status: Fetched}) // same batch: keeps the new number
	moved, err := s.Commit(&b)
	if err != nil || moved[0].Seq != 4 || moved[1].Seq != 4 || moved[1].Rev != 6 {
		t.Fatalf("Move: %+v, %v; want seq 4, revs 5 and 6", moved, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	defer s.Close()
	var order []string
	if err := s.Each(func(r Record) error { order = append(order, r.URL+"@"+r.Text); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"http://x/a@again", "http://x/c@", "http://x/b@changed twice"}
	if !slices.Equal(order, want) {
		t.Errorf("Each after Move = %q; want %q", order, want)
	}
	if r, err := s.Put(Record{Page: page.Page{URL: "http://x/d"}}); err != nil || r.Seq != 5 || r.Rev != 7 {
		t.Errorf("after reopen: seq %d rev %d, %v; want 5, 7", r.Seq, r.Rev, err)
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
