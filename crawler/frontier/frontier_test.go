package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	bolt "go.etcd.io/bbolt"
)

func open(t testing.TB, path string) *Frontier {
	t.Helper()
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func tempFrontier(t testing.TB) *Frontier {
	t.Helper()
	f := open(t, filepath.Join(t.TempDir(), "frontier.db"))
	t.Cleanup(func() { f.Close() })
	return f
}

func TestAddRequestColly(t *testing.T) {
	f := tempFrontier(t)
	c := colly.NewCollector()
	mk := func(u string, prio any) []byte {
		req, err := c.UnmarshalRequest([]byte(`{"URL":"` + u + `","Method":"GET"}`))
		if err != nil {
			t.Fatal(err)
		}
		if prio != nil {
			req.Ctx.Put(PriorityKey, prio)
		}
		b, err := req.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	reqs := [][]byte{mk("http://h/low", nil), mk("http://h/high", 10), mk("http://h/str", "5"), mk("http://h/high", 99)}
	for _, r := range reqs {
		if err := f.AddRequest(r); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []int{1, 2, 0} {
		got, err := f.GetRequest()
		if err != nil || string(got) != string(reqs[want]) {
			t.Fatalf("GetRequest #%d = %s, %v; want %s", i, got, err, reqs[want])
		}
	}
	if _, err := f.GetRequest(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("GetRequest on empty: %v, want ErrEmpty", err)
	}
	for _, bad := range [][]byte{[]byte("not json"), mk("http://h/x", "high"), mk("http://h/y", true), []byte(`{"Method":"GET"}`)} {
		if err := f.AddRequest(bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("AddRequest(%s) = %v, want ErrBadRequest", bad, err)
		}
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	defer f.Close()
	if _, err := Open(path, Options{LockTimeout: 50 * time.Millisecond}); err == nil {
		t.Fatal("second Open of a locked frontier succeeded")
	}
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	f.Add("a", 1, nil)
	f.Add("b", 1, nil)
	if _, err := f.Next(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A URL in flight is not written as such: on disk it is pending,
	// where a restart would put it back.
	if st, _ := r.Stats(); st.Pending != 2 || st.InFlight != 0 {
		t.Errorf("read-only stats %+v, want 2 pending", st)
	}
	if _, err := r.Add("c", 1, nil); err == nil {
		t.Error("Add on a read-only frontier succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.db"), Options{ReadOnly: true}); err == nil {
		t.Error("a missing frontier opened read-only")
	}
}

// The one-change methods (Add, Done, Reprioritize, Schedule, Seen, Next)
// are Commit, SeenAll and NextWhere of one change, which the conformance
// suite covers; this checks the wrapping. GetRequest synthesizes a colly
// request carrying the priority for a URL queued without payload.
func TestOneChangeMethods(t *testing.T) {
	f := tempFrontier(t)
	t0 := time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		name string
		do   func() (any, error)
		want string
		err  error
	}{
		{"Add new", func() (any, error) { return f.Add("a", 1, nil) }, "true", nil},
		{"Add seen", func() (any, error) { return f.Add("a", 9, nil) }, "false", nil},
		{"Add empty", func() (any, error) { return f.Add("", 0, nil) }, "false", ErrBadRequest},
		{"Add b", func() (any, error) { return f.Add("b", 1, []byte("pb")) }, "true", nil},
		{"Reprioritize pending", func() (any, error) { return f.Reprioritize("b", 5) }, "true", nil},
		{"Reprioritize unknown", func() (any, error) { return f.Reprioritize("x", 5) }, "false", nil},
		{"Seen", func() (any, error) { return f.Seen("b") }, "true", nil},
		{"Seen unknown", func() (any, error) { return f.Seen("x") }, "false", nil},
		{"QueueSize", func() (any, error) { return f.QueueSize() }, "2", nil},
		{"Next", func() (any, error) { it, err := f.Next(); return it.URL + "@" + fmt.Sprint(it.Priority), err }, "b@5", nil},
		{"Done", func() (any, error) { return nil, f.Done("b", "fetched") }, "<nil>", nil},
		{"Done empty", func() (any, error) { return nil, f.Done("", "") }, "<nil>", ErrBadRequest},
		{"Schedule", func() (any, error) { return nil, f.Schedule("b", t0, 7) }, "<nil>", nil},
		{"Due", func() (any, error) { return f.Due(t0) }, "1", nil},
		{"GetRequest", func() (any, error) { return getURL(f) }, "b@7", nil},
		{"GetRequest synthesized", func() (any, error) { return getURL(f) }, "a@1", nil},
		{"GetRequest empty", func() (any, error) { return getURL(f) }, "", ErrEmpty},
	}
	for _, s := range steps {
		v, err := s.do()
		if got := fmt.Sprint(v); got != s.want || !errors.Is(err, s.err) || (err == nil) != (s.err == nil) {
			t.Errorf("%s = %q, %v; want %q, %v", s.name, got, err, s.want, s.err)
		}
	}
}

// getURL pops a request with GetRequest and returns "URL@priority".
func getURL(f *Frontier) (string, error) {
	b, err := f.GetRequest()
	if err != nil {
		return "", err
	}
	req, err := colly.NewCollector().UnmarshalRequest(b)
	if err != nil {
		return "", err
	}
	return fmt.Sprint(req.URL, "@", req.Ctx.GetAny(PriorityKey)), nil
}

// Files of earlier versions wrote popped URLs to bucket "inflight"; Open
// returns them to "pending" under their keys, so they come back in their
// old places.
func TestOpenRequeuesOldInFlight(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := open(t, path)
	for _, u := range []string{"a", "b", "c"} {
		if _, err := f.Add(u, 0, []byte("p"+u)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { // a and b in flight, as earlier versions wrote it
		for _, u := range []string{"a", "b"} {
			v := tx.Bucket(bURLs).Get([]byte(u))
			key := bytes.Clone(v[1:])
			item := bytes.Clone(tx.Bucket(bPending).Get(key))
			if err := tx.Bucket(bPending).Delete(key); err != nil {
				return err
			}
			if err := tx.Bucket(bInFlight).Put(key, item); err != nil {
				return err
			}
			if err := tx.Bucket(bURLs).Put([]byte(u), stateValue(InFlight, key)); err != nil {
				return err
			}
		}
		return putCounts(tx, Stats{Pending: 1, InFlight: 2})
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	f = open(t, path)
	defer f.Close()
	if st, _ := f.Stats(); st != (Stats{Pending: 3}) {
		t.Errorf("Stats after upgrade = %+v, want 3 pending", st)
	}
	var got []string
	for {
		it, err := f.Next()
		if err != nil {
			break
		}
		got = append(got, it.URL+":"+string(it.Payload))
	}
	if want := []string{"a:pa", "b:pb", "c:pc"}; !slices.Equal(got, want) {
		t.Errorf("after upgrade = %v, want %v", got, want)
	}
}

// TestNextDuringCommit checks that URLs are handed out while a Commit is
// being written (its transaction held open by testHookCommit), except
// the URLs that Commit changes, and that a Next which finds only those
// waits for the Commit rather than answering that nothing is pending.
func TestNextDuringCommit(t *testing.T) {
	f := tempFrontier(t)
	var b Batch
	for i, u := range []string{"http://h/a", "http://h/b", "http://h/c"} {
		b.Add(u, 10-i, nil)
	}
	if _, err := f.Commit(&b); err != nil {
		t.Fatal(err)
	}
	first, err := f.Next()
	if err != nil || first.URL != "http://h/a" {
		t.Fatalf("Next = %v, %v; want http://h/a", first.URL, err)
	}
	inTx, proceed := make(chan struct{}), make(chan struct{})
	testHookCommit = func() { close(inTx); <-proceed }
	defer func() { testHookCommit = nil }()
	var b2 Batch
	b2.Done("http://h/a", "fetched")
	b2.Reprioritize("http://h/b", 20) // c is left alone by this Commit
	b2.Add("http://h/d", 30, nil)
	committed := make(chan error, 1)
	go func() {
		_, err := f.Commit(&b2)
		committed <- err
	}()
	<-inTx
	got := make(chan Item, 1)
	go func() {
		it, err := f.Next()
		if err != nil {
			t.Error(err)
		}
		got <- it
	}()
	select {
	case it := <-got:
		if it.URL != "http://h/c" {
			t.Errorf("Next during the Commit = %q, want http://h/c (b is the Commit's, d not committed yet)", it.URL)
		}
	case <-time.After(time.Minute):
		t.Fatal("Next waited for the Commit's transaction")
	}
	// Only the Commit's b is left: this Next must wait for it.
	go func() {
		it, err := f.Next()
		if err != nil {
			t.Error(err)
		}
		got <- it
	}()
	select {
	case it := <-got:
		t.Fatalf("Next = %q before the Commit ended", it.URL)
	case <-time.After(100 * time.Millisecond):
	}
	close(proceed)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if it := <-got; it.URL != "http://h/d" {
		t.Errorf("Next after the Commit = %q, want http://h/d (priority 30)", it.URL)
	}
	st, err := f.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != 1 || st.InFlight != 2 || st.Done != 1 {
		t.Errorf("stats %+v, want 1 pending (b), 2 in flight (c, d), 1 done (a)", st)
	}
}
