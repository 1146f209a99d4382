package ranking

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/internal/tokens"
)

// BenchmarkCrawlQueries times what /api/search does for a pasted title —
// a collapsed page of 10 with facets, and the spelling suggestion when
// fewer than a page of results come back or a word is misspelled (as
// web's suggestion asks for it) — over a crawl's data directory
// (DOPPEL_CRAWL, opened read-only as doppel serve opens it) for 300
// titles of its site (DOPPEL_SITE: the kit's site.jsonl; titles no other
// page has, drawn with seed 1), as the kit's search-check asks them of
// the server. Skipped without both. Reported: p50 and p99 per query (a
// query is one search and, if asked, one suggestion), as a guest, and
// the CPU time of the process per query (GC included), which a loaded
// machine changes less; searches stopped at Options.Timeout count at
// the time they took (timeouts). The same percentiles of the process's
// CPU time during each query (cpu_p50_ms, cpu_p99_ms) say what a query
// costs when the machine is shared. DOPPEL_SEEDS (default "1") lists the
// seeds whose titles are asked, 300 each, in turn; the ten slowest
// queries (by CPU time) are logged with their times, so that a profile
// (-cpuprofile) can be read beside the queries that make the p99.
//
//	DOPPEL_CRAWL=/tmp/crawl-copy DOPPEL_SITE=/tmp/tuning/site.jsonl \
//	  go test ./ranking -run XXX -bench CrawlQueries -benchtime 600x
func BenchmarkCrawlQueries(b *testing.B) {
	dir, site := os.Getenv("DOPPEL_CRAWL"), os.Getenv("DOPPEL_SITE")
	if dir == "" || site == "" {
		b.Skip("DOPPEL_CRAWL (a crawl's data directory) and DOPPEL_SITE (its site.jsonl) are not both set")
	}
	titles := seedTitles(b, site)
	v, err := crawler.OpenView(dir)
	if err != nil {
		b.Skip(err)
	}
	defer v.Close()
	s := New(v.Store(), Options{})
	ctx := context.Background()
	timeouts := 0
	query := func(q string) {
		res, err := s.Search(ctx, Request{Query: q, Size: 10, Facets: true})
		if err == nil && (res.Total < res.Size || s.Misspelled(ctx, q, nil)) {
			_, err = s.Suggest(ctx, q, nil)
		}
		switch {
		case errors.Is(err, ErrTimeout):
			timeouts++ // a loaded machine: counted at the time it took
		case err != nil:
			b.Fatal(err)
		}
	}
	for _, q := range titles[:min(20, len(titles))] { // warm the index's caches, as a server's first queries do
		query(q)
	}
	type timed struct {
		q      string
		d, cpu time.Duration
	}
	var times []timed
	cpu0 := cpuTime()
	for b.Loop() {
		q := titles[len(times)%len(titles)]
		start, c := time.Now(), cpuTime()
		query(q)
		times = append(times, timed{q, time.Since(start), cpuTime() - c})
	}
	cpu := cpuTime() - cpu0
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.SortFunc(times, func(a, b timed) int { return cmp.Compare(b.cpu, a.cpu) })
	for _, t := range times[:min(10, len(times))] {
		b.Logf("cpu %6.1f ms, elapsed %6.1f ms  %q", ms(t.cpu), ms(t.d), t.q)
	}
	lat, cpus := make([]time.Duration, len(times)), make([]time.Duration, len(times))
	for i, t := range times {
		lat[i], cpus[i] = t.d, t.cpu
	}
	slices.Sort(lat)
	slices.Sort(cpus)
	p := func(ds []time.Duration, q int) float64 { return ms(ds[min(len(ds)-1, len(ds)*q/100)]) }
	b.ReportMetric(ms(cpu)/float64(len(lat)), "cpu_ms/query")
	b.ReportMetric(p(lat, 50), "p50_ms")
	b.ReportMetric(p(lat, 99), "p99_ms")
	// The process's CPU time during each query (one query runs at a
	// time): what its latency would be on an idle machine, near enough.
	b.ReportMetric(p(cpus, 50), "cpu_p50_ms")
	b.ReportMetric(p(cpus, 99), "cpu_p99_ms")
	b.ReportMetric(float64(timeouts), "timeouts")
}

// cpuTime returns the CPU time the process has used (user and system):
// on a machine others share, it says what a query costs where its
// elapsed time says how long it waited too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// siteTitles returns n titles of the site.jsonl at path that no other of
// its pages has, in an order drawn with seed; it skips b when the file
// cannot be read.
func siteTitles(b testing.TB, path string, n int, seed uint64) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	count := map[string]int{}
	var titles []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d struct{ Title string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		if d.Title != "" {
			if count[d.Title] == 0 {
				titles = append(titles, d.Title)
			}
			count[d.Title]++
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	titles = slices.DeleteFunc(titles, func(t string) bool { return count[t] > 1 })
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	if len(titles) == 0 {
		b.Skip(path + " holds no title")
	}
	return titles[:min(n, len(titles))]
}

// seedTitles returns the titles of the site.jsonl at path for each seed
// of DOPPEL_SEEDS (default "1"), 300 per seed, one seed after the other;
// or, with DOPPEL_QUERIES set, the lines of that file (the slowest
// queries a run logged, say, to profile them alone).
func seedTitles(b testing.TB, path string) []string {
	if f := os.Getenv("DOPPEL_QUERIES"); f != "" {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatalf("DOPPEL_QUERIES: %v", err)
		}
		return strings.Split(strings.TrimSpace(string(text)), "\n")
	}
	var titles []string
	for _, f := range strings.Fields(cmp.Or(os.Getenv("DOPPEL_SEEDS"), "1")) {
		seed, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			b.Fatalf("DOPPEL_SEEDS: %v", err)
		}
		titles = append(titles, siteTitles(b, path, 300, seed)...)
	}
	return titles
}

// TestCrawlTopTen compares the first page of every title
// BenchmarkCrawlQueries asks (DOPPEL_CRAWL, DOPPEL_SITE, DOPPEL_SEEDS)
// with the pages recorded in the file DOPPEL_TOP10: the ids of the ten
// hits of each query, in order, and their scores, as a guest sees them.
// Without the file it writes it, so that a change meant to make queries
// cheaper can be checked to give the same answers: record on the old
// code (or index), compare on the new. Every query whose page differs is
// logged with both pages, and fails the test; a page whose hits are the
// same, with the same scores, but where hits of scores equal to the
// last digits of a float64 (a relative 1e-12) come in another order is
// counted apart and passes: bleve adds up a document's score in the
// order its searchers meet it, which the index's segments change, and
// ties are broken by the last bit. (A file recorded without scores is
// compared by ids alone.) Skipped without the three variables.
//
//	DOPPEL_CRAWL=/tmp/crawl-copy DOPPEL_SITE=/tmp/mixed/site.jsonl DOPPEL_SEEDS="1 2 3" \
//	  DOPPEL_TOP10=/tmp/top10.tsv go test ./ranking -run CrawlTopTen
func TestCrawlTopTen(t *testing.T) {
	dir, site, file := os.Getenv("DOPPEL_CRAWL"), os.Getenv("DOPPEL_SITE"), os.Getenv("DOPPEL_TOP10")
	if dir == "" || site == "" || file == "" {
		t.Skip("DOPPEL_CRAWL, DOPPEL_SITE and DOPPEL_TOP10 (the pages recorded, or to record) are not all set")
	}
	titles := seedTitles(t, site)
	v, err := crawler.OpenView(dir)
	if err != nil {
		t.Skip(err)
	}
	defer v.Close()
	s := New(v.Store(), Options{Timeout: -1})
	pages := map[string]topPage{}
	var lines []string
	for _, q := range titles {
		if _, seen := pages[q]; seen {
			continue
		}
		res, err := s.Search(context.Background(), Request{Query: q, Size: 10, Facets: true})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var p topPage
		for _, h := range res.Hits {
			p.ids = append(p.ids, h.ID)
			p.scores = append(p.scores, h.Score)
		}
		pages[q] = p
		lines = append(lines, strconv.Quote(q)+"\t"+p.String())
	}
	recorded, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded the first pages of %d queries in %s", len(lines), file)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	compared, differ, ties := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(recorded)), "\n") {
		qq, rest, _ := strings.Cut(line, "\t")
		q, err := strconv.Unquote(qq)
		if err != nil {
			t.Fatalf("%s: %q: %v", file, qq, err)
		}
		got, asked := pages[q]
		if !asked {
			continue
		}
		compared++
		want, err := parseTopPage(rest)
		if err != nil {
			t.Fatalf("%s: %q: %v", file, qq, err)
		}
		switch same, tie := want.same(got); {
		case tie:
			ties++
			t.Logf("%q: hits of equal scores in another order:\n recorded %s\n now      %s", q, want, got)
		case !same:
			differ++
			t.Errorf("%q:\n recorded %s\n now      %s", q, want, got)
		}
	}
	if compared == 0 {
		t.Fatalf("%s holds none of the %d queries asked", file, len(pages))
	}
	t.Logf("%d queries compared, %d pages differ, %d more list hits of equal scores in another order", compared, differ, ties)
}

// A topPage is a first page of hits: their ids in order, and their
// scores (none when read from a file recorded without them).
type topPage struct {
	ids    []string
	scores []float64
}

// String is the page as a file of TestCrawlTopTen holds it: the ids, a
// tab, the scores.
func (p topPage) String() string {
	scores := make([]string, len(p.scores))
	for i, sc := range p.scores {
		scores[i] = strconv.FormatFloat(sc, 'g', 17, 64)
	}
	return strings.Join(p.ids, " ") + "\t" + strings.Join(scores, " ")
}

// parseTopPage reads a page as String writes it, or ids alone.
func parseTopPage(text string) (topPage, error) {
	ids, scores, _ := strings.Cut(text, "\t")
	p := topPage{ids: strings.Fields(ids)}
	for _, f := range strings.Fields(scores) {
		sc, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return p, err
		}
		p.scores = append(p.scores, sc)
	}
	return p, nil
}

// same reports whether got is page p, and if not whether it lists the
// same hits with the same scores but hits of equal scores (to a relative
// 1e-12) in another order.
func (p topPage) same(got topPage) (same, tie bool) {
	if slices.Equal(p.ids, got.ids) {
		return true, false
	}
	if len(p.scores) != len(p.ids) || len(got.ids) != len(p.ids) ||
		!slices.Equal(slices.Sorted(slices.Values(p.ids)), slices.Sorted(slices.Values(got.ids))) {
		return false, false
	}
	score := map[string]float64{}
	for i, id := range p.ids {
		score[id] = p.scores[i]
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for i, id := range got.ids {
		// The hit at each place has the score recorded there, and its
		// own recorded score.
		if !near(got.scores[i], p.scores[i]) || !near(got.scores[i], score[id]) {
			return false, false
		}
	}
	return false, true
}

// BenchmarkCompleteCrawl times /api/suggest's completions over a crawl's
// data directory (DOPPEL_CRAWL) as BenchmarkCompleteDemo does on the
// demo: the first two to five letters of each word of the titles of
// DOPPEL_SITE's pages (those BenchmarkCrawlQueries asks, seed 1), alone
// and after the title's word before it, as a guest. Reported: the median
// and 99th percentile of the elapsed time and of the process's CPU time
// per completion, and how long the guest's vocabulary took to build
// before the first (vocabulary_ms, 0 on an index that gives none).
// Skipped without both variables.
//
//	DOPPEL_CRAWL=/tmp/crawl-copy DOPPEL_SITE=/tmp/mixed/site.jsonl \
//	  go test ./ranking -run XXX -bench CompleteCrawl -benchtime 3000x
func BenchmarkCompleteCrawl(b *testing.B) {
	dir, site := os.Getenv("DOPPEL_CRAWL"), os.Getenv("DOPPEL_SITE")
	if dir == "" || site == "" {
		b.Skip("DOPPEL_CRAWL (a crawl's data directory) and DOPPEL_SITE (its site.jsonl) are not both set")
	}
	var typed []string
	for _, t := range siteTitles(b, site, 300, 1) {
		words := tokens.Append(nil, strings.ToLower(t))
		for i, w := range words {
			for n := 2; n <= min(5, len(w)); n++ {
				typed = append(typed, w[:n])
				if i > 0 {
					typed = append(typed, words[i-1]+" "+w[:n])
				}
			}
		}
	}
	rand.New(rand.NewPCG(39, 3)).Shuffle(len(typed), func(i, j int) { typed[i], typed[j] = typed[j], typed[i] })
	v, err := crawler.OpenView(dir)
	if err != nil {
		b.Skip(err)
	}
	defer v.Close()
	s := New(v.Store(), Options{})
	ctx := context.Background()
	// A server builds a guest's vocabulary at the first completion and
	// keeps it while the index is unchanged: built here before the clock
	// runs, its time reported apart.
	start := time.Now()
	if _, err := s.Complete(ctx, typed[0], nil); err != nil {
		b.Fatal(err)
	}
	for s.vocab.latest("") == nil && s.vocab.building("") {
		time.Sleep(time.Millisecond)
	}
	vocabulary := time.Since(start)
	var lat, cpus []time.Duration
	for b.Loop() {
		q := typed[len(lat)%len(typed)]
		start, c := time.Now(), cpuTime()
		if _, err := s.Complete(ctx, q, nil); err != nil && !errors.Is(err, ErrTimeout) {
			b.Fatalf("%q: %v", q, err)
		}
		lat, cpus = append(lat, time.Since(start)), append(cpus, cpuTime()-c)
	}
	slices.Sort(lat)
	slices.Sort(cpus)
	p := func(ds []time.Duration, q int) float64 {
		return float64(ds[min(len(ds)-1, len(ds)*q/100)].Microseconds()) / 1000
	}
	b.ReportMetric(p(lat, 50), "p50_ms")
	b.ReportMetric(p(lat, 99), "p99_ms")
	b.ReportMetric(p(cpus, 50), "cpu_p50_ms")
	b.ReportMetric(p(cpus, 99), "cpu_p99_ms")
	b.ReportMetric(float64(vocabulary.Milliseconds()), "vocabulary_ms")
}

// TestTopPageSame: TestCrawlTopTen's comparison — the same page; the
// same hits with hits of equal scores (to the last digits) in another
// order; and pages that differ: another hit, another score, or hits of
// different scores swapped.
func TestTopPageSame(t *testing.T) {
	rec := topPage{ids: []string{"a", "b", "c"}, scores: []float64{1, 0.2342593533278059, 0.23425935332780584}}
	for _, tc := range []struct {
		got        topPage
		same, ties bool
	}{
		{topPage{ids: []string{"a", "b", "c"}, scores: rec.scores}, true, false},
		{topPage{ids: []string{"a", "c", "b"}, scores: []float64{1, 0.23425935332780584, 0.2342593533278059}}, false, true},
		{topPage{ids: []string{"a", "b", "d"}, scores: rec.scores}, false, false},
		{topPage{ids: []string{"a", "c", "b"}, scores: []float64{1, 0.25, 0.2}}, false, false},
		{topPage{ids: []string{"b", "a", "c"}, scores: []float64{1, 1, 0.23425935332780584}}, false, false},
	} {
		same, ties := rec.same(tc.got)
		if same != tc.same || ties != tc.ties {
			t.Errorf("same(%v) = %v, %v; want %v, %v", tc.got, same, ties, tc.same, tc.ties)
		}
	}
	back, err := parseTopPage(rec.String())
	if err != nil || !slices.Equal(back.ids, rec.ids) || !slices.Equal(back.scores, rec.scores) {
		t.Errorf("parseTopPage(%q) = %v, %v", rec.String(), back, err)
	}
}

// BenchmarkSuggestCrawl times "Did you mean" over a crawl's data
// directory (DOPPEL_CRAWL, opened read-only) for misspellings of its
// site's title words (DOPPEL_SITE; one slip each, as TestSpellingOnDemo
// makes them, seed 39), as a guest, beside a plain search of the same
// text in the same run (search-reference) and the suggestion made by
// reading the pages that hold near words (pages: what an index without
// a snapshot does, and every index did before). Reported for each: the
// process's CPU time per call (cpu_ms/call, GC included) and the
// median and 99th percentile of the elapsed time. Skipped without both
// variables.
//
//	DOPPEL_CRAWL=/tmp/final-mixed DOPPEL_SITE=/tmp/mixed/site.jsonl \
//	  go test ./ranking -run XXX -bench SuggestCrawl -benchtime 200x
func BenchmarkSuggestCrawl(b *testing.B) {
	dir, site := os.Getenv("DOPPEL_CRAWL"), os.Getenv("DOPPEL_SITE")
	if dir == "" || site == "" {
		b.Skip("DOPPEL_CRAWL (a crawl's data directory) and DOPPEL_SITE (its site.jsonl) are not both set")
	}
	rng := rand.New(rand.NewPCG(39, 1))
	var typos []string
	for _, t := range siteTitles(b, site, 300, 1) {
		for _, w := range tokens.Append(nil, strings.ToLower(t)) {
			if len(w) >= 5 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
				typos = append(typos, misspell(w, rng))
				break
			}
		}
	}
	v, err := crawler.OpenView(dir)
	if err != nil {
		b.Skip(err)
	}
	defer v.Close()
	s := New(v.Store(), Options{Timeout: time.Minute})
	ctx := context.Background()
	run := func(b *testing.B, do func(q string) error) {
		for _, q := range typos[:min(10, len(typos))] { // warm the index's caches
			if err := do(q); err != nil {
				b.Fatal(err)
			}
		}
		var lat []time.Duration
		cpu := cpuTime()
		for b.Loop() {
			start := time.Now()
			if err := do(typos[len(lat)%len(typos)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		used := cpuTime() - cpu
		slices.Sort(lat)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(used)/float64(len(lat)), "cpu_ms/call")
		b.ReportMetric(ms(lat[len(lat)/2]), "p50_ms")
		b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99_ms")
	}
	b.Run("suggest", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Suggest(ctx, q, nil); return err })
	})
	b.Run("search-reference", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.Search(ctx, Request{Query: q, Size: 10, Facets: true}); return err })
	})
	b.Run("pages", func(b *testing.B) {
		run(b, func(q string) error { _, err := s.nearest(ctx, q, nil); return err })
	})
}
