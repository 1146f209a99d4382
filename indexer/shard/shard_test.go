package shard_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/indexer/shard"
)

// TestRoute: a cluster's shard depends on its id and the number of
// shards only, and clusters spread over every shard.
func TestRoute(t *testing.T) {
	for _, n := range []int{1, 2, 4, 7} {
		used := map[int]int{}
		for i := range 1000 {
			c := fmt.Sprint("cluster-", i)
			k := shard.Route(c, n)
			if k < 0 || k >= n || k != shard.Route(c, n) {
				t.Fatalf("Route(%s, %d) = %d", c, n, k)
			}
			used[k]++
		}
		for k := range n {
			if used[k] < 1000/n/2 {
				t.Errorf("%d shards: shard %d has %d of 1000 clusters", n, k, used[k])
			}
		}
	}
}

// clustersOn returns n cluster ids, the i-th routed to shard want[i] of
// shards.
func clustersOn(shards int, want ...int) []string {
	out := make([]string, len(want))
	for i, k := range want {
		for j := 0; ; j++ {
			c := fmt.Sprintf("c%d-%d", i, j)
			if shard.Route(c, shards) == k {
				out[i] = c
				break
			}
		}
	}
	return out
}

func doc(id, body string) indexer.Doc {
	return indexer.Doc{ID: id, URL: "http://intra.example/" + id, Host: "intra.example", Title: "Title " + id, Body: body, Lang: "en"}
}

func open(t *testing.T, dir string, n int, opts indexer.Options) *shard.Index {
	t.Helper()
	s, err := shard.Open(dir, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// where returns the shards whose records hold id: its member record
// (Holds) or a document or difference record of that id.
func where(t *testing.T, s *shard.Index, id string) []int {
	t.Helper()
	var out []int
	for i := range s.Shards() {
		held, err := s.Shard(i).Holds(id)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Shard(i).Bleve().Search(bleve.NewSearchRequest(bleve.NewDocIDQuery([]string{id})))
		if err != nil {
			t.Fatal(err)
		}
		if held || res.Total > 0 {
			out = append(out, i)
		}
	}
	return out
}

// roster writes a cluster's members as "id*" for the master, "id+" for
// an indexed non-master, "id" for one left out.
func roster(t *testing.T, s indexer.Searcher, cluster string) []string {
	t.Helper()
	ms, err := s.MembersOfContext(context.Background(), []string{cluster})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, m := range ms[cluster] {
		switch {
		case m.Master:
			out = append(out, m.ID+"*")
		case m.Indexed:
			out = append(out, m.ID+"+")
		default:
			out = append(out, m.ID)
		}
	}
	return out
}

// TestClusterStaysOnItsShard: every record of a cluster — its master,
// copies, difference records and member records — is on its shard,
// whichever member is master as documents take it over and leave.
func TestClusterStaysOnItsShard(t *testing.T) {
	src := docs{}
	s := open(t, t.TempDir(), 4, indexer.Options{Source: src})
	ctx := context.Background()
	cs := clustersOn(4, 0, 1, 2, 3)
	for _, c := range cs {
		for i := range 4 {
			id := fmt.Sprintf("%s-m%d", c, i)
			d := doc(id, "travel policy hotels meals "+id)
			src[id] = d
			p := indexer.Placement{Cluster: c, Master: fmt.Sprintf("%s-m%d", c, i/2*2), Duplicate: i > 0} // m2 takes over from m0
			if err := s.Add(ctx, d, p); err != nil {
				t.Fatal(err)
			}
		}
		// The master leaves; m3 is elected.
		if err := s.Remove(ctx, indexer.Change{ID: c + "-m2", Cluster: c, Master: c + "-m3", Elected: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for k, c := range cs {
		if got := roster(t, s, c); !slices.Equal(got, []string{c + "-m3*", c + "-m0", c + "-m1"}) {
			t.Errorf("members of %s: %v", c, got)
		}
		for i := range 4 {
			id := fmt.Sprintf("%s-m%d", c, i)
			want := []int{k}
			if i == 2 {
				want = nil
			}
			if got := where(t, s, id); !slices.Equal(got, want) {
				t.Errorf("%s is on shards %v, want %v", id, got, want)
			}
		}
		for i := range 4 {
			if ms, _ := s.Shard(i).Members(c); (len(ms) > 0) != (i == k) {
				t.Errorf("shard %d holds %d members of %s (its shard is %d)", i, len(ms), c, k)
			}
		}
	}
}

// docs is a Source over a map.
type docs map[string]indexer.Doc

func (m docs) Doc(_ context.Context, id string) (*indexer.Doc, error) {
	d, ok := m[id]
	if !ok {
		return nil, nil
	}
	return &d, nil
}

// TestMoves: a document that leaves its cluster for one on another
// shard, a member an election moves to another shard's cluster, and a
// document added again into another shard's cluster each end on the new
// shard alone, the clusters' members as one index would have them.
func TestMoves(t *testing.T) {
	cs := clustersOn(4, 0, 1, 2, 3)
	a, b, c, e := cs[0], cs[1], cs[2], cs[3]
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context, w indexer.Writer) error
		check map[string][]string // cluster → roster
		on    map[string]int      // document → its shard
	}{
		{"update leaves", func(ctx context.Context, w indexer.Writer) error {
			d := doc("a2", "an entirely new text about budgets")
			return w.Update(ctx, d, indexer.Change{ID: "a2", Cluster: a, Master: "a1", Left: true,
				Placement: indexer.Placement{ID: "a2", Cluster: b, Master: "a2"}})
		}, map[string][]string{a: {"a1*", "a3"}, b: {"a2*"}}, map[string]int{"a1": 0, "a2": 1, "a3": 0}},
		{"master leaves", func(ctx context.Context, w indexer.Writer) error {
			d := doc("a1", "an entirely new text about budgets")
			return w.Update(ctx, d, indexer.Change{ID: "a1", Cluster: a, Master: "a2", Elected: true, Left: true,
				Placement: indexer.Placement{ID: "a1", Cluster: c, Master: "a1"}})
		}, map[string][]string{a: {"a2*", "a3"}, c: {"a1*"}}, map[string]int{"a1": 2, "a2": 0, "a3": 0}},
		{"election moves", func(ctx context.Context, w indexer.Writer) error {
			return w.Remove(ctx, indexer.Change{ID: "a1", Cluster: a, Master: "a2", Elected: true,
				Moved: []indexer.Placement{{ID: "a3", Cluster: e, Master: "a3"}}})
		}, map[string][]string{a: {"a2*"}, e: {"a3*"}}, map[string]int{"a2": 0, "a3": 3}},
		{"added elsewhere", func(ctx context.Context, w indexer.Writer) error {
			return w.Add(ctx, doc("a3", "travel policy hotels"), indexer.Placement{Cluster: b, Master: "a3"})
		}, map[string][]string{a: {"a1*", "a2"}, b: {"a3*"}}, map[string]int{"a1": 0, "a3": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := docs{}
			for _, id := range []string{"a1", "a2", "a3"} {
				src[id] = doc(id, "travel policy hotels")
			}
			one, err := indexer.Open(t.TempDir(), indexer.Options{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			defer one.Close()
			s := open(t, t.TempDir(), 4, indexer.Options{Source: src})
			ctx := context.Background()
			for _, w := range []indexer.Writer{one, s} {
				for _, id := range []string{"a1", "a2", "a3"} {
					if err := w.Add(ctx, src[id], indexer.Placement{Cluster: a, Master: "a1", Duplicate: id != "a1"}); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				if err := tc.write(ctx, w); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for cl, want := range tc.check {
				if got := roster(t, s, cl); !slices.Equal(got, want) {
					t.Errorf("members of %s: %v, want %v", cl, got, want)
				}
				if got := roster(t, one, cl); !slices.Equal(got, want) {
					t.Errorf("one index: members of %s: %v, want %v", cl, got, want)
				}
			}
			for id, k := range tc.on {
				if got := where(t, s, id); !slices.Equal(got, []int{k}) {
					t.Errorf("%s is on shards %v, want [%d]", id, got, k)
				}
			}
			for _, q := range []string{"budgets", "travel"} {
				if got, want := ids(t, s, q), ids(t, one, q); !slices.Equal(got, want) {
					t.Errorf("%q finds %v, one index %v", q, got, want)
				}
			}
		})
	}
}

// ids returns the documents a text query finds, in id order.
func ids(t *testing.T, s indexer.Searcher, text string) []string {
	t.Helper()
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(indexer.TextQuery(text), indexer.VisibleTo(nil)), 100, 0, false)
	req.SortBy([]string{"_id"})
	res, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

// crashChild runs in a child process: it writes cluster a, flushes,
// moves a2 to cluster b of another shard, writes only one of the two
// shards' batches (the old one's or the new one's), and exits as a
// crash would.
func crashChild(dir, which string) {
	s, err := shard.Open(dir, 4, indexer.Options{NoAutoFlush: true})
	if err != nil {
		os.Exit(2)
	}
	ctx := context.Background()
	cs := clustersOn(4, 0, 1)
	for _, id := range []string{"a1", "a2"} {
		if s.Add(ctx, doc(id, "travel policy hotels"), indexer.Placement{Cluster: cs[0], Master: "a1", Duplicate: id != "a1"}) != nil {
			os.Exit(2)
		}
	}
	if s.Flush(ctx) != nil || moveA2(ctx, s, cs) != nil {
		os.Exit(2)
	}
	k := map[string]int{"old": 0, "new": 1}[which]
	if s.Shard(k).Flush(ctx) != nil {
		os.Exit(2)
	}
	os.Exit(3)
}

func moveA2(ctx context.Context, w indexer.Writer, cs []string) error {
	return w.Update(ctx, doc("a2", "an entirely new text about budgets"), indexer.Change{ID: "a2", Cluster: cs[0], Master: "a1", Left: true,
		Placement: indexer.Placement{ID: "a2", Cluster: cs[1], Master: "a2"}})
}

// TestCrashReplay kills a writer after one of the two batches of a move
// between shards: the document is then on both shards or on neither.
// Replaying the write (as the crawler replays what followed the last
// Flush) converges: a2 on the new shard alone, found once.
func TestCrashReplay(t *testing.T) {
	if dir := os.Getenv("SHARD_CRASH_DIR"); dir != "" {
		crashChild(dir, os.Getenv("SHARD_CRASH_WHICH"))
	}
	cs := clustersOn(4, 0, 1)
	for _, which := range []string{"old", "new"} {
		for _, replay := range []string{"update", "add"} {
			t.Run(which+"/"+replay, func(t *testing.T) {
				dir := t.TempDir()
				cmd := exec.Command(os.Args[0], "-test.run=^TestCrashReplay$")
				cmd.Env = append(os.Environ(), "SHARD_CRASH_DIR="+dir, "SHARD_CRASH_WHICH="+which)
				if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 3 {
					t.Fatalf("child: %v", err)
				}
				s := open(t, dir, 4, indexer.Options{NoAutoFlush: true})
				before := where(t, s, "a2")
				if want := map[string][]int{"old": nil, "new": {0, 1}}[which]; !slices.Equal(before, want) {
					t.Fatalf("after the crash a2 is on shards %v, want %v", before, want)
				}
				ctx := context.Background()
				var err error
				if replay == "update" {
					err = moveA2(ctx, s, cs)
				} else { // the detector, rebuilt, places a2 in b at once
					err = s.Add(ctx, doc("a2", "an entirely new text about budgets"), indexer.Placement{Cluster: cs[1], Master: "a2"})
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				if got := where(t, s, "a2"); !slices.Equal(got, []int{1}) {
					t.Errorf("after the crash a2 was on shards %v; after the replay on %v, want [1]", before, got)
				}
				if got := roster(t, s, cs[0]); !slices.Equal(got, []string{"a1*"}) {
					t.Errorf("members of a: %v", got)
				}
				if got := ids(t, s, "budgets"); !slices.Equal(got, []string{"a2"}) {
					t.Errorf("budgets finds %v", got)
				}
				if n, err := s.SearchableCount(); err != nil || n != 2 {
					t.Errorf("SearchableCount = %d, %v; want 2", n, err)
				}
			})
		}
	}
}

// TestReopen: a sharded index keeps its number of shards; opening it
// with another fails clearly, never routing again; 0 reads the
// manifest; a directory without one, or with an index not sharded, is
// not opened as sharded; a shard directory in another's place is found.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := shard.Open(dir, 4, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Add(ctx, doc("x", "printer toner"), indexer.Placement{Cluster: "cx", Master: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 8} {
		_, err := shard.Open(dir, n, indexer.Options{})
		if !errors.Is(err, shard.ErrShardCount) {
			t.Errorf("Open with %d shards: %v, want ErrShardCount", n, err)
		}
	}
	for _, n := range []int{0, 4} {
		s, err := shard.Open(dir, n, indexer.Options{ReadOnly: n == 0})
		if err != nil {
			t.Fatalf("Open with %d: %v", n, err)
		}
		if s.Shards() != 4 || len(ids(t, s, "toner")) != 1 {
			t.Errorf("Open with %d: %d shards, toner finds %v", n, s.Shards(), ids(t, s, "toner"))
		}
		s.Close()
	}
	if _, err := shard.Open(t.TempDir(), 0, indexer.Options{}); !errors.Is(err, shard.ErrNotSharded) {
		t.Errorf("Open of an empty directory with 0 shards: %v, want ErrNotSharded", err)
	}
	plain := t.TempDir()
	x, err := indexer.Open(plain, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if _, err := shard.Open(plain, 4, indexer.Options{}); !errors.Is(err, shard.ErrNotSharded) {
		t.Errorf("Open of an index not sharded: %v, want ErrNotSharded", err)
	}
	// Swap two shard directories.
	a, b := filepath.Join(dir, "shard-001"), filepath.Join(dir, "shard-002")
	if err := os.Rename(a, a+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(a+".tmp", b); err != nil {
		t.Fatal(err)
	}
	if _, err := shard.Open(dir, 0, indexer.Options{}); !errors.Is(err, shard.ErrShardCount) {
		t.Errorf("Open with shard directories swapped: %v, want an error naming the shard", err)
	}
}
