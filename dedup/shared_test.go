package dedup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler/pagelog"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/eval"
	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/dedup/stats"
	"github.com/doppel-search/doppel/internal/testrig/long"
	"github.com/doppel-search/doppel/internal/testrig/redistest"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

// sharedCorpus returns the documents the tests of NewShared insert:
// fanoutCorpus (families of edited copies, many exact copies of a few
// pages, pages that differ only by numbers, template pages at the
// threshold), chains whose clusters depend on the order of arrival (each
// text a copy of the next, not of the one after), and unsignable pages;
// every document with a URL, a time, a quality and, for some, a
// preference, so that every master policy hands clusters over.
func sharedCorpus(seed uint64) []Document {
	r := rand.New(rand.NewPCG(seed, 11))
	docs := fanoutCorpus(r)
	for c, chain := range chainTexts(r, 3, 6) {
		for k, text := range chain {
			docs = append(docs, Document{ID: fmt.Sprintf("chain%d-%d", c, k), Text: text})
		}
	}
	docs = append(docs, Document{ID: "empty"}, Document{ID: "punctuation", Text: "!! ??"})
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range docs {
		docs[i].URL = "http://x/" + strings.Repeat("p", r.IntN(12)) + strconv.Itoa(i)
		if r.IntN(5) > 0 {
			docs[i].Time = base.Add(time.Duration(r.IntN(1000)) * time.Hour)
		}
		docs[i].Quality = r.Float64()
		if r.IntN(10) == 0 {
			docs[i].Preference = 1
		}
	}
	return docs
}

// A sharedConfig is the options a test of NewShared runs with, and
// whether the Detector has a statistics table (a crawl's has none).
type sharedConfig struct {
	name    string
	opts    Options
	noTable bool
}

var sharedConfigs = []sharedConfig{
	{"hybrid", Options{}, false},
	{"hybrid/crawl", Options{}, true},
	{"hybrid/fanout=2/edits/shortest-url", Options{MaxFanout: 2, EditAllowance: 3, Master: cluster.ShortestURL}, false},
	{"hybrid/recent/lsh-only", Options{Master: cluster.MostRecent, LSHOnly: true}, false},
	{"hybrid/cosine/estimate/quality", Options{Similarity: Cosine, Verify: Estimate, Master: cluster.HighestQuality}, false},
	{"simhash", Options{Method: SimHash}, false},
	{"imatch-multi", Options{Method: IMatchMulti}, false},
	{"minhash/fanout=3", Options{Method: MinHash, MaxFanout: 3}, false},
	{"dsc-ss", Options{Method: DSCSS}, false},
}

func sharedConfigNamed(name string) sharedConfig {
	for _, c := range sharedConfigs {
		if c.name == name {
			return c
		}
	}
	panic("no shared config " + name)
}

// table returns the statistics table of c over docs (nil for a crawl's).
func (c sharedConfig) table(t testing.TB, docs []Document) *stats.Table {
	if c.noTable {
		return nil
	}
	return tableOf(t, c.opts, docs)
}

var sharedPrefixes atomic.Int64

// sharedPrefix returns a key prefix no other test of this process uses.
func sharedPrefix() string {
	return fmt.Sprintf("dedup%d-%d", os.Getpid(), sharedPrefixes.Add(1))
}

// openShared returns a Detector of c on the store under prefix.
func openShared(t testing.TB, rdb redis.UniversalClient, prefix string, c sharedConfig, table *stats.Table, lease time.Duration) *Detector {
	t.Helper()
	o := c.opts
	o.EnsureDefaults()
	sig, err := redissig.Open(context.Background(), rdb, o.fanoutLimits(), redissig.Options{Prefix: prefix, HammingK: o.HammingK, Lease: lease, Shards: 32})
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewShared(table, c.opts, sig)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// insertAll adds docs to d in order and returns the results by id.
func insertAll(d *Detector, docs []Document) (map[string]Result, error) {
	out := map[string]Result{}
	err := d.AddAll(context.Background(), docs, 2, func(r Result) error {
		out[r.ID] = r
		return nil
	})
	return out, err
}

// embedded inserts docs, in order, into a Detector made with New and
// returns its results by id, its assignments and its counters.
func embedded(t *testing.T, c sharedConfig, table *stats.Table, docs []Document) (map[string]Result, []Assignment, Stats) {
	t.Helper()
	d, err := New(table, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := insertAll(d, docs)
	if err != nil {
		t.Fatal(err)
	}
	return res, d.Assignments(), d.Stats()
}

// sameRuns fails unless the shared run's results and assignments are the
// embedded run's, and every cluster was founded once.
func sameRuns(t *testing.T, got map[string]Result, gotAs []Assignment, want map[string]Result, wantAs []Assignment) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d results, the embedded Detector has %d", len(got), len(want))
	}
	bad := 0
	for id, w := range want {
		if g := got[id]; !reflect.DeepEqual(g, w) && bad < 5 {
			bad++
			t.Errorf("%s: shared %+v\n\tembedded %+v", id, g, w)
		}
	}
	if !slices.Equal(gotAs, wantAs) {
		for i := range min(len(gotAs), len(wantAs)) {
			if gotAs[i] != wantAs[i] {
				t.Errorf("assignment %d: shared %+v, embedded %+v", i, gotAs[i], wantAs[i])
				break
			}
		}
		t.Fatalf("%d shared assignments, %d embedded: not the same", len(gotAs), len(wantAs))
	}
	founders, masters := map[cluster.ID]int{}, map[cluster.ID]bool{}
	for _, r := range got {
		if !r.Duplicate {
			founders[r.Cluster]++
		}
	}
	for _, a := range gotAs {
		masters[a.Cluster] = true
	}
	for id, n := range founders {
		if n != 1 {
			t.Errorf("cluster %s founded %d times", id, n)
		}
	}
	if len(founders) != len(masters) {
		t.Errorf("%d clusters founded, %d clusters", len(founders), len(masters))
	}
}

// inOrder returns docs in the order of the assignments (the shared
// document numbers).
func inOrder(t *testing.T, docs []Document, as []Assignment) []Document {
	t.Helper()
	byID := map[string]Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	out := make([]Document, len(as))
	for i, a := range as {
		d, ok := byID[a.ID]
		if !ok {
			t.Fatalf("assignment of %q, never inserted", a.ID)
		}
		out[i] = d
	}
	return out
}

// TestShared starts a Redis Cluster of three masters and runs the tests
// of NewShared on it.
func TestShared(t *testing.T) {
	rdb := redistest.Start(t, 3, 0).Client()
	for _, tc := range []struct {
		name string
		test func(*testing.T, *redis.ClusterClient)
	}{
		{"Serial", testSharedSerial},
		{"Workers", testSharedWorkers},
		{"KilledWorker", testSharedKilledWorker},
		{"Errors", testSharedErrors},
		{"Turns", testSharedTurns},
		{"TurnLost", testSharedTurnLost},
		{"HeldOutCorpus", testSharedCorpus},
		{"Aside", testSharedAside},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, rdb) })
	}
}

// testSharedSerial: one Detector on the shared store gives, for every
// method and option set, exactly the results, assignments, clusters and
// list counters of the embedded Detector.
func testSharedSerial(t *testing.T, rdb *redis.ClusterClient) {
	docs := sharedCorpus(1)
	for _, c := range sharedConfigs {
		t.Run(c.name, func(t *testing.T) {
			table := c.table(t, docs)
			d := openShared(t, rdb, sharedPrefix(), c, table, 0)
			got, err := insertAll(d, docs)
			if err != nil {
				t.Fatal(err)
			}
			want, wantAs, wantStats := embedded(t, c, table, docs)
			sameRuns(t, got, d.Assignments(), want, wantAs)
			e, err := New(table, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range docs {
				if _, err := e.Add(doc); err != nil {
					t.Fatal(err)
				}
			}
			if gc, wc := d.Clusters(), e.Clusters(); !reflect.DeepEqual(gc, wc) {
				t.Errorf("%d clusters, embedded %d: not the same", len(gc), len(wc))
			}
			if cl, ok := d.Cluster(wantAs[0].Cluster); !ok || cl.ID != wantAs[0].Cluster {
				t.Errorf("Cluster(%s) = %v, %v", wantAs[0].Cluster, cl.ID, ok)
			}
			st := d.Stats()
			if st.Documents != wantStats.Documents || st.Clusters != wantStats.Clusters || st.Pairs != wantStats.Pairs ||
				st.NewMasters != wantStats.NewMasters || st.Capped != wantStats.Capped || st.StopKeys != wantStats.StopKeys ||
				st.Candidates != wantStats.Candidates {
				t.Errorf("Stats %+v\n\tembedded %+v", st, wantStats)
			}
			if wantStats.NewMasters == 0 || wantStats.Duplicates == 0 {
				t.Errorf("no hand-over or no duplicate (%+v): the corpus does not test them", wantStats)
			}
		})
	}
}

// sharedWorkerEnv names the environment of a worker process.
const (
	envSharedWorker = "DOPPEL_SHARED_WORKER" // "config|prefix|addrs|part|parts|lease|hold"
)

// TestSharedWorkerProcess is a worker of testSharedWorkers and
// testSharedKilledWorker in a process of its own: it inserts its part of
// sharedCorpus and prints each result as a line "result JSON"; with hold
// k > 0 it takes the number of its k-th document, prints "held", and
// waits to be killed.
func TestSharedWorkerProcess(t *testing.T) {
	env := os.Getenv(envSharedWorker)
	if env == "" {
		t.Skip("a worker of TestShared, run in a process of its own")
	}
	f := strings.Split(env, "|")
	c := sharedConfigNamed(f[0])
	part, _ := strconv.Atoi(f[3])
	parts, _ := strconv.Atoi(f[4])
	lease, _ := time.ParseDuration(f[5])
	hold, _ := strconv.Atoi(f[6])
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(f[2], ",")})
	defer rdb.Close()
	docs := sharedCorpus(1)
	d := openShared(t, rdb, f[1], c, c.table(t, docs), lease)
	if hold > 0 {
		d.remote.sh = &holdingShared{Shared: d.remote.sh, hold: hold}
	}
	for i, doc := range docs {
		if i%parts != part {
			continue
		}
		res, err := d.Add(doc)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		fmt.Printf("result %s\n", b)
	}
}

// holdingShared takes the number of its hold-th document and never goes
// on: a worker that dies mid-insert.
type holdingShared struct {
	signatures.Shared
	hold, n int
}

func (h *holdingShared) Begin(ctx context.Context) (uint32, bool, error) {
	doc, settled, err := h.Shared.Begin(ctx)
	if h.n++; h.n == h.hold {
		fmt.Printf("held %d\n", doc)
		time.Sleep(time.Hour)
	}
	return doc, settled, err
}

// startWorker starts TestSharedWorkerProcess on part of parts.
func startWorker(t *testing.T, rdb *redis.ClusterClient, c sharedConfig, prefix string, part, parts int, lease time.Duration, hold int) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSharedWorkerProcess$")
	cmd.Env = append(os.Environ(), envSharedWorker+"="+strings.Join([]string{c.name, prefix, strings.Join(rdb.Options().Addrs, ","),
		strconv.Itoa(part), strconv.Itoa(parts), lease.String(), strconv.Itoa(hold)}, "|"))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

// readResults reads the results a worker process printed until it ends.
func readResults(t *testing.T, cmd *exec.Cmd, out *bufio.Reader, into map[string]Result) {
	t.Helper()
	var all bytes.Buffer
	for {
		line, err := out.ReadString('\n')
		all.WriteString(line)
		if rest, ok := strings.CutPrefix(line, "result "); ok {
			var r Result
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				t.Fatal(err)
			}
			into[r.ID] = r
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker process: %v\n%s", err, all.String())
	}
}

// testSharedWorkers: four workers — three goroutines and a process —
// insert their parts of the corpus at once; the results, every cluster
// and master, and the assignments are those of one embedded Detector
// inserting the documents in the order of their shared numbers.
func testSharedWorkers(t *testing.T, rdb *redis.ClusterClient) {
	docs := sharedCorpus(1)
	const parts = 4
	for _, name := range []string{"hybrid", "hybrid/fanout=2/edits/shortest-url", "simhash"} {
		t.Run(name, func(t *testing.T) {
			c := sharedConfigNamed(name)
			prefix, table := sharedPrefix(), c.table(t, docs)
			cmd, out := startWorker(t, rdb, c, prefix, parts-1, parts, 10*time.Second, 0)
			got := map[string]Result{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for part := range parts - 1 {
				wg.Go(func() {
					d := openShared(t, rdb, prefix, c, table, 10*time.Second)
					for i, doc := range docs {
						if i%parts != part {
							continue
						}
						r, err := d.Add(doc)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						got[r.ID] = r
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			readResults(t, cmd, out, got)
			d := openShared(t, rdb, prefix, c, table, 0)
			as := d.Assignments()
			order := inOrder(t, docs, as)
			want, wantAs, _ := embedded(t, c, table, order)
			sameRuns(t, got, as, want, wantAs)
			// The workers' numbers interleave: they inserted at once.
			partOf := map[string]int{}
			for i, doc := range docs {
				partOf[doc.ID] = i % parts
			}
			switches, seen := 0, map[int]bool{}
			for i := 1; i < len(order); i++ {
				if partOf[order[i].ID] != partOf[order[i-1].ID] {
					switches++
				}
				seen[partOf[order[i].ID]] = true
			}
			if switches < len(order)/10 || len(seen) != parts {
				t.Errorf("%d switches between workers in %d documents, %d workers: they did not insert at once", switches, len(order), len(seen))
			}
		})
	}
}

// testSharedKilledWorker: a worker process killed while it holds a
// number holds the others up for its lease, no longer; its document is
// not inserted, and the clusters of the others are those of an embedded
// Detector.
func testSharedKilledWorker(t *testing.T, rdb *redis.ClusterClient) {
	const lease = 1500 * time.Millisecond
	docs := sharedCorpus(1)
	c := sharedConfigNamed("hybrid")
	prefix, table := sharedPrefix(), c.table(t, docs)
	// The process inserts documents 0, 5, 10 and holds the number of 15.
	const parts = 5
	cmd, out := startWorker(t, rdb, c, prefix, 0, parts, lease, 4)
	got := map[string]Result{}
	var held string
	for {
		line, err := out.ReadString('\n')
		if rest, ok := strings.CutPrefix(line, "result "); ok {
			var r Result
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				t.Fatal(err)
			}
			got[r.ID] = r
		}
		if strings.HasPrefix(line, "held ") {
			held = docs[3*parts].ID
			break
		}
		if err != nil {
			t.Fatalf("the worker process ended before holding a number: %v", err)
		}
	}
	killed := time.Now()
	cmd.Process.Kill()
	cmd.Wait()
	var mu sync.Mutex
	var slowest time.Duration
	var wg sync.WaitGroup
	for part := 1; part < parts; part++ {
		wg.Go(func() {
			d := openShared(t, rdb, prefix, c, table, lease)
			for i, doc := range docs {
				if i%parts != part {
					continue
				}
				start := time.Now()
				r, err := d.Add(doc)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[r.ID], slowest = r, max(slowest, time.Since(start))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if slowest < lease/2 || slowest > lease+2*time.Second {
		t.Errorf("the slowest insert took %v after the kill (%v ago) with a lease of %v: want about the lease", slowest, time.Since(killed), lease)
	}
	d := openShared(t, rdb, prefix, c, table, 0)
	as := d.Assignments()
	if slices.ContainsFunc(as, func(a Assignment) bool { return a.ID == held }) {
		t.Errorf("%s, held by the killed worker, was inserted", held)
	}
	// The other parts, and the three documents of part 0 before the one
	// held.
	if want := len(docs) - (len(docs)+parts-1)/parts + 3; len(as) != want || len(got) != want {
		t.Errorf("%d assignments, %d results; want %d", len(as), len(got), want)
	}
	want, wantAs, _ := embedded(t, c, table, inOrder(t, docs, as))
	sameRuns(t, got, as, want, wantAs)
}

// testSharedErrors: an id already inserted (by any worker) is refused,
// and what a shared Detector does not support says so.
func testSharedErrors(t *testing.T, rdb *redis.ClusterClient) {
	c := sharedConfigNamed("hybrid")
	prefix := sharedPrefix()
	a, b := openShared(t, rdb, prefix, c, nil, 0), openShared(t, rdb, prefix, c, nil, 0)
	doc := Document{ID: "x", Text: strings.Join(words(50), " ")}
	if _, err := a.Add(doc); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(doc); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("the same id from another worker: %v, want ErrDuplicateID", err)
	}
	r, err := b.Add(Document{ID: "y", Text: doc.Text})
	if err != nil || !r.Duplicate || r.Master != "x" || len(r.Pairs) != 1 {
		t.Errorf("a copy after a refused id: %+v, %v", r, err)
	}
	for name, err := range map[string]error{
		"Remove":        func() error { _, err := a.Remove("x"); return err }(),
		"Replace":       func() error { _, err := a.Replace(doc); return err }(),
		"Recluster":     func() error { _, err := a.Recluster(context.Background()); return err }(),
		"Refresh":       a.Refresh(context.Background(), nil, nil),
		"WriteSnapshot": a.WriteSnapshot(&bytes.Buffer{}),
	} {
		if !errors.Is(err, ErrShared) {
			t.Errorf("%s: %v, want ErrShared", name, err)
		}
	}
	if a.StarAssignments() != nil {
		t.Error("StarAssignments of a shared Detector")
	}
	sig, err := redissig.Open(context.Background(), rdb, signatures.Limits{}, redissig.Options{Prefix: sharedPrefix()})
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]Options{"limits": {}, "sets on disk": {SetsDir: t.TempDir(), MaxFanout: -1}, "hamming": {MaxFanout: -1, HammingK: 4}} {
		if _, err := NewShared(nil, opts, sig); err == nil {
			t.Errorf("NewShared with other %s: no error", name)
		}
	}
}

// testSharedCorpus: on book-revisions of the shared corpus (its first
// 1,500 documents, all 5,702 with DOPPEL_LONG=1; skipped
// without it, and with -short), two workers on the shared store reach
// the precision and recall of one embedded Detector against the held-out
// pairs — the same pairs, the same clusters as an embedded Detector
// inserting in the shared numbers' order.
func testSharedCorpus(t *testing.T, rdb *redis.ClusterClient) {
	if testing.Short() {
		t.Skip("5,702 documents")
	}
	// The first 1,500 documents (the file is in path order, so whole
	// families of revisions), all 5,702 with DOPPEL_LONG=1.
	var docs []Document
	held := map[string]bool{}
	for _, rec := range testcorpus.Docs(t, "book-revisions.jsonl.gz", long.N(1500, 0)) {
		docs = append(docs, Document{ID: rec.ID, Text: rec.Text})
		held[rec.ID] = true
	}
	f, err := os.Open(testcorpus.Path(t, "book-revisions.pairs.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	truth, err := eval.LoadPairs(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	positives := truth.Positives(eval.Resemblance, 0.9)
	maps.DeleteFunc(positives, func(p eval.Pair, _ struct{}) bool { return !held[p.A] || !held[p.B] })
	if len(positives) == 0 {
		t.Fatal("no positive pair among the documents read")
	}
	score := func(res map[string]Result) eval.Scores {
		pairs := eval.PairSet{}
		for _, r := range res {
			for _, p := range r.Pairs {
				pairs.Add(p.A, p.B)
			}
		}
		return eval.Score(pairs, positives)
	}
	c := sharedConfigNamed("hybrid")
	table := c.table(t, docs)
	one, _, _ := embedded(t, c, table, docs)
	prefix := sharedPrefix()
	got := map[string]Result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for part := range 2 {
		wg.Go(func() {
			d := openShared(t, rdb, prefix, c, table, 0)
			var mine []Document
			for i := part; i < len(docs); i += 2 {
				mine = append(mine, docs[i])
			}
			res, err := insertAll(d, mine)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			maps.Copy(got, res)
			mu.Unlock()
		})
	}
	wg.Wait()
	s1, s2 := score(one), score(got)
	t.Logf("book-revisions, hybrid: one embedded Detector P %.4f R %.4f (%d pairs); two workers on Redis P %.4f R %.4f (%d pairs)",
		s1.Precision, s1.Recall, s1.TP+s1.FP, s2.Precision, s2.Recall, s2.TP+s2.FP)
	if s1 != s2 {
		t.Errorf("two shared workers score %+v, one embedded Detector %+v", s2, s1)
	}
	as := openShared(t, rdb, prefix, c, table, 0).Assignments()
	want, wantAs, _ := embedded(t, c, table, inOrder(t, docs, as))
	sameRuns(t, got, as, want, wantAs)
}

// testSharedTurns: three workers insert the corpus with InsertTurn, each
// appending to a page log at its document's turn (its id, cluster and
// master as the Result passed says); some appends are followed by an
// error, whose number is given up, and the document inserted again. A
// reader reading the log meanwhile gets exactly the committed documents,
// in number order, each in the cluster the shared assignment gives it,
// with the payload its successful turn appended; and the results are
// those of one embedded Detector.
func testSharedTurns(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	docs := sharedCorpus(2)
	const workers = 3
	for _, name := range []string{"hybrid", "hybrid/fanout=2/edits/shortest-url", "simhash"} {
		t.Run(name, func(t *testing.T) {
			c := sharedConfigNamed(name)
			prefix, table := sharedPrefix(), c.table(t, docs)
			o := c.opts
			o.EnsureDefaults()
			sig, err := redissig.Open(ctx, rdb, o.fanoutLimits(), redissig.Options{Prefix: prefix, HammingK: o.HammingK, Shards: 32})
			if err != nil {
				t.Fatal(err)
			}
			log, err := pagelog.Open(ctx, rdb, pagelog.Options{Prefix: prefix + "-log"})
			if err != nil {
				t.Fatal(err)
			}
			payloadOf := func(r Result) string { return r.ID + " " + string(r.Cluster) + " " + r.Master }

			// The reader, from the start, while the workers insert.
			entries := make(chan []pagelog.Entry, 1)
			go func() {
				rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				defer cancel()
				r := log.Reader(pagelog.FatesOf(sig), 0, pagelog.ReaderOptions{Batch: 16, Poll: 10 * time.Millisecond})
				var out []pagelog.Entry
				for len(out) < len(docs) {
					e, err := r.Next(rctx)
					if err != nil {
						t.Errorf("Next after %d entries: %v", len(out), err)
						break
					}
					out = append(out, e)
				}
				entries <- out
			}()

			errHook := errors.New("the append failed")
			var mu sync.Mutex
			got := map[string]Result{}
			numberOf := map[string]uint32{} // the number of each document's successful turn
			failed := map[uint32]bool{}     // the numbers of the turns that failed
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					d := openShared(t, rdb, prefix, c, table, 10*time.Second)
					for i, doc := range docs {
						if i%workers != w {
							continue
						}
						p, err := d.Prepare(doc)
						if err != nil {
							t.Error(err)
							return
						}
						var last uint32
						var atTurn Result
						turns := 0
						hook := func(n uint32, res Result) error {
							turns++
							if err := log.Append(ctx, n, []byte(payloadOf(res))); err != nil {
								return err
							}
							last, atTurn = n, res
							if i%7 == 0 && turns == 1 { // appended, then fails
								mu.Lock()
								failed[n] = true
								mu.Unlock()
								return errHook
							}
							return nil
						}
						r, err := d.InsertTurn(p, hook)
						if i%7 == 0 {
							if !errors.Is(err, errHook) {
								t.Errorf("%s: the first insert, whose turn failed: %v, want its error", doc.ID, err)
								return
							}
							// Given up at once (not after its lease): the
							// turn has passed it, uncommitted.
							if turn, committed, _, err := sig.Outcomes(ctx, last, 1); err != nil || turn <= last || committed[0] {
								t.Errorf("%s: number %d after its failed turn: turn %d, committed %v, %v", doc.ID, last, turn, committed, err)
							}
							r, err = d.InsertTurn(p, hook) // again: it was not inserted
						}
						if err != nil {
							t.Error(err)
							return
						}
						if !reflect.DeepEqual(r, atTurn) {
							t.Errorf("%s: InsertTurn = %+v, at its turn %+v", doc.ID, r, atTurn)
						}
						mu.Lock()
						got[r.ID], numberOf[r.ID] = r, last
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			out := <-entries
			d := openShared(t, rdb, prefix, c, table, 0)
			as := d.Assignments()
			if len(out) != len(as) || len(as) != len(docs) {
				t.Fatalf("%d entries, %d assignments, %d documents", len(out), len(as), len(docs))
			}
			for i, e := range out {
				a := as[i]
				if i > 0 && e.N <= out[i-1].N {
					t.Fatalf("entry %d: number %d after %d", i, e.N, out[i-1].N)
				}
				if failed[e.N] {
					t.Errorf("entry %d: number %d, whose turn failed, delivered", i, e.N)
				}
				if e.N != numberOf[a.ID] {
					t.Errorf("entry %d: number %d, %s (assignment %d) committed as %d", i, e.N, a.ID, i, numberOf[a.ID])
				}
				if e.Cluster != string(a.Cluster) {
					t.Errorf("entry %d (%s): cluster %q, assigned %q", i, a.ID, e.Cluster, a.Cluster)
				}
				if p := string(e.Payload); p != payloadOf(got[a.ID]) {
					t.Errorf("entry %d: payload %q, want %q", i, p, payloadOf(got[a.ID]))
				}
			}
			if len(failed) < len(docs)/7 {
				t.Errorf("%d turns failed, want %d", len(failed), len(docs)/7+1)
			}
			r := log.Reader(pagelog.FatesOf(sig), out[len(out)-1].N+1, pagelog.ReaderOptions{Poll: 10 * time.Millisecond})
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			if e, err := r.Next(short); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("an entry after the last document: %d %q, %v", e.N, e.Payload, err)
			}
			want, wantAs, _ := embedded(t, c, table, inOrder(t, docs, as))
			sameRuns(t, got, as, want, wantAs)
		})
	}
	if _, err := mustNew(t).InsertTurn(&Prepared{}, nil); !errors.Is(err, ErrNotShared) {
		t.Errorf("InsertTurn on a Detector made with New: %v, want ErrNotShared", err)
	}
}

// mustNew returns a Detector made with New and the default options.
func mustNew(t *testing.T) *Detector {
	t.Helper()
	d, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testSharedTurnLost: an atTurn that outlasts the lease loses its number
// (a reader gives it up); the document is inserted under the next
// number, atTurn called again with it, and the reader delivers that one
// only, with the document's cluster.
func testSharedTurnLost(t *testing.T, rdb *redis.ClusterClient) {
	ctx := context.Background()
	const lease = 300 * time.Millisecond
	c := sharedConfigNamed("hybrid")
	prefix := sharedPrefix()
	o := c.opts
	o.EnsureDefaults()
	sig, err := redissig.Open(ctx, rdb, o.fanoutLimits(), redissig.Options{Prefix: prefix, Shards: 32})
	if err != nil {
		t.Fatal(err)
	}
	log, err := pagelog.Open(ctx, rdb, pagelog.Options{Prefix: prefix + "-log"})
	if err != nil {
		t.Fatal(err)
	}
	d := openShared(t, rdb, prefix, c, nil, lease)
	r := log.Reader(pagelog.FatesOf(sig), 0, pagelog.ReaderOptions{Poll: 10 * time.Millisecond})
	entry := make(chan pagelog.Entry, 1)
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		e, err := r.Next(rctx) // polls the turns, giving 0 up once its lease ran out
		if err != nil {
			t.Error(err)
		}
		entry <- e
	}()
	var turns []uint32
	p, err := d.Prepare(Document{ID: "x", Text: strings.Join(words(50), " ")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.InsertTurn(p, func(n uint32, res Result) error {
		turns = append(turns, n)
		if err := log.Append(ctx, n, []byte(res.Cluster)); err != nil {
			return err
		}
		if len(turns) == 1 {
			time.Sleep(3 * lease) // the reader gives n up meanwhile
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(turns, []uint32{0, 1}) {
		t.Fatalf("atTurn called with %v, want [0 1] (0 lost)", turns)
	}
	e := <-entry
	if e.N != 1 || e.Cluster != string(res.Cluster) || string(e.Payload) != string(res.Cluster) {
		t.Errorf("entry %d, cluster %q, payload %q; want 1, %q, %q", e.N, e.Cluster, e.Payload, res.Cluster, res.Cluster)
	}
}

// testSharedAside: a number taken aside sits between the documents
// inserted before and after it, is given up (no document has it: the
// assignments are those of the documents alone) and returns fn's error;
// a Detector made with New has no shared order.
func testSharedAside(t *testing.T, rdb *redis.ClusterClient) {
	docs := sharedCorpus(1)[:6]
	d := openShared(t, rdb, sharedPrefix(), sharedConfigs[0], nil, 0)
	var numbers []uint32
	turn := func(n uint32, _ Result) error { numbers = append(numbers, n); return nil }
	boom := errors.New("boom")
	for i, doc := range docs {
		p, err := d.Prepare(doc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.InsertTurn(p, turn); err != nil {
			t.Fatal(err)
		}
		want := error(nil)
		if i == 2 {
			want = boom
		}
		err = d.Aside(func(n uint32) error { numbers = append(numbers, n); return want })
		if !errors.Is(err, want) {
			t.Fatalf("Aside: %v, want %v", err, want)
		}
	}
	for i, n := range numbers {
		if n != uint32(i) {
			t.Fatalf("numbers %v: not 0, 1, 2, … in the order taken", numbers)
		}
	}
	as := d.Assignments()
	if len(as) != len(docs) {
		t.Fatalf("%d assignments after %d documents and %d numbers aside", len(as), len(docs), len(docs))
	}
	// A number whose lease runs out while fn works is taken again: fn is
	// called with a new one.
	slow := openShared(t, rdb, sharedPrefix(), sharedConfigs[0], nil, 100*time.Millisecond)
	var got []uint32
	err := slow.Aside(func(n uint32) error {
		got = append(got, n)
		if len(got) == 1 {
			time.Sleep(300 * time.Millisecond)
			// A reader's poll gives n up.
			if _, _, _, err := slow.remote.sh.(*redissig.Signatures).Outcomes(context.Background(), 0, 1); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	if err != nil || len(got) != 2 || got[0] == got[1] {
		t.Errorf("Aside with a lease run out: %v, numbers %v; want fn called again with a new number", err, got)
	}
	e, err := New(nil, sharedConfigs[0].opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Aside(func(uint32) error { return nil }); !errors.Is(err, ErrNotShared) {
		t.Errorf("Aside on an embedded Detector: %v, want ErrNotShared", err)
	}
}
