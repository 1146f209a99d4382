package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

// The attack of TestAbuse and BenchmarkAbuse (issue 10), and the bounds
// TestAbuse checks. No bound is a latency: how fast the ordinary users
// are answered depends on what else the machine runs, and is measured
// by BenchmarkAbuse.
const (
	abuseClients = 100             // hostile clients, all from one address
	abuseUsers   = 4               // ordinary users, each from an address of its own
	abuseMaxRSS  = 1 << 30         // peak resident memory of the test process
	abuseHang    = time.Minute     // a request not answered by then has hung (the server's own limits are 2 s and 3 s)
	abuseAfter   = 2 * time.Second // how long ordinary queries are measured after the attack
	abuseDiffs   = 32              // distinct long pages whose "what differs" the attack asks for
	attacker     = "127.0.0.2"
)

// abuseDuration is how long the attack lasts: $DOPPEL_ABUSE_SECONDS,
// default 3 s.
func abuseDuration(t testing.TB) time.Duration {
	s := os.Getenv("DOPPEL_ABUSE_SECONDS")
	if s == "" {
		return 3 * time.Second
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		t.Fatalf("DOPPEL_ABUSE_SECONDS=%q: want a positive number of seconds", s)
	}
	return time.Duration(n * float64(time.Second))
}

// abuseTarget returns the crawl attacked: $DOPPEL_ABUSE_DATA opened
// read-only, or the demo intranet's crawl.
func abuseTarget(t testing.TB) (v *crawler.View, name string) {
	dir := os.Getenv("DOPPEL_ABUSE_DATA")
	if dir == "" {
		t.Log("DOPPEL_ABUSE_DATA (a doppel crawl data directory) is not set: the short version, on the demo intranet's crawl")
		return demo(t).crawler.View(), "the demo intranet"
	}
	v, err := crawler.OpenView(dir) // read-only; fails if a crawl holds the directory
	if err != nil {
		t.Fatalf("DOPPEL_ABUSE_DATA=%s: %v", dir, err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

// memory returns the process's peak and current resident memory (VmHWM,
// VmRSS) in bytes.
func memory(t testing.TB) (peak, now int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if n, _ := fmt.Sscanf(sc.Text(), "VmHWM: %d kB", &kb); n == 1 {
			peak = kb << 10
		}
		if n, _ := fmt.Sscanf(sc.Text(), "VmRSS: %d kB", &kb); n == 1 {
			now = kb << 10
		}
	}
	if peak == 0 || now == 0 {
		t.Skip("no VmHWM or VmRSS in /proc/self/status")
	}
	return peak, now
}

// resetPeak resets VmHWM to the current RSS (Linux: "5" to clear_refs), so
// that the peak measured is the attack's, not the set-up crawl's.
func resetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage returns the first field of /proc/loadavg: what else the
// machine runs shows in the latencies.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b) + " ?")[0]
}

// getJSON GETs u with client into v; anything but 200 is fatal.
func getJSON(t testing.TB, client *http.Client, u string, v any) {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		t.Fatalf("%.200s: %s %s", u, resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// searchTitles returns up to 200 page titles, found through the API, for
// the ordinary users to search for.
func searchTitles(t testing.TB, client *http.Client, base string) []string {
	var titles []string
	seen := map[string]bool{}
	for _, q := range []string{"java", "class", "method", "interface", "package", "git", "node", "sphinx",
		"vpn", "printer", "leave", "manual", "policy", "the"} {
		var res struct {
			Hits []struct{ Title string }
		}
		getJSON(t, client, base+"/api/search?size=100&q="+url.QueryEscape(q), &res)
		for _, h := range res.Hits {
			if h.Title != "" && !seen[h.Title] && len(titles) < 200 {
				seen[h.Title] = true
				titles = append(titles, h.Title)
			}
		}
	}
	return titles
}

// diffTarget is a near-duplicate page, for "what differs" with its master.
type diffTarget struct {
	id, cluster string
	words       int
}

// longPages returns the abuseDiffs longest near-duplicates of the crawl
// (pages that are not their cluster's master) that an anonymous user may
// see.
func longPages(t testing.TB, v *crawler.View, client *http.Client, base string) []diffTarget {
	var all []diffTarget
	err := v.Entries(func(e crawler.Entry) error {
		if e.Status == "fetched" && e.Master != "" && e.Master != e.URL {
			if text, ok := v.Text(e.URL); ok {
				all = append(all, diffTarget{e.URL, e.Cluster, len(strings.Fields(text))})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b diffTarget) int { return b.words - a.words })
	var out []diffTarget
	visible := map[string]map[string]bool{} // cluster → members an anonymous user sees
	for _, d := range all {
		if len(out) == abuseDiffs {
			break
		}
		if visible[d.cluster] == nil {
			var res struct {
				Members []struct{ ID string }
			}
			visible[d.cluster] = map[string]bool{}
			resp, err := client.Get(base + "/api/cluster/" + url.PathEscape(d.cluster))
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode == http.StatusOK {
				json.NewDecoder(resp.Body).Decode(&res)
			}
			resp.Body.Close()
			for _, m := range res.Members {
				visible[d.cluster][m.ID] = true
			}
		}
		if visible[d.cluster][d.id] {
			out = append(out, d)
		}
	}
	return out
}

// hostile is a kind of attack request.
type hostile struct {
	name string
	path func(i int) string
}

// tally is what one kind of request got.
type tally struct {
	codes     map[int]int
	errs      int
	firstErr  string
	latencies []time.Duration
}

func newTally() *tally { return &tally{codes: map[int]int{}} }

func (t *tally) add(code int, d time.Duration, err error) {
	if err != nil {
		t.errs++
		if t.firstErr == "" {
			t.firstErr = err.Error()
		}
		return
	}
	t.codes[code]++
	t.latencies = append(t.latencies, d)
}

func (t *tally) requests() int { return len(t.latencies) + t.errs }

// pct returns the p-th percentile of sorted latencies (nearest rank).
func pct(ls []time.Duration, p float64) time.Duration {
	if len(ls) == 0 {
		return 0
	}
	i := int(float64(len(ls))*p/100+0.999999) - 1
	return ls[max(0, min(i, len(ls)-1))]
}

// get sends one GET and reads the whole answer.
func get(client *http.Client, req *http.Request) (int, time.Duration, error) {
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Since(start), err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start), err
}

// TestAbuse attacks the search server — web.New over a crawl's index and
// texts, behind web.HTTPServer, defaults everywhere — with 100 concurrent
// clients from one address sending what took `doppel serve` down in
// issue 10 (regular expressions and wildcards matching every term, fuzzy
// terms, 100 kB queries, "what differs" of the longest near-duplicates,
// each client one request after the other without waiting, with a made-up
// X-Forwarded-For the server must not believe), while 4 ordinary users,
// each from an address of its own, search for page titles one query after
// the other. Then the ordinary users go on alone, and the attacker's
// address sends one ordinary query. It checks issue 10's bounds that do
// not depend on the machine's load: every hostile request answered (any
// status but a 5xx other than 503; none hangs); the ordinary queries all
// answered 200, during the attack and after it; the attacker's query
// after it answered 200; the process's peak resident memory (VmHWM,
// reset before the attack) at most 1 GB. The ordinary users' latencies
// are logged; BenchmarkAbuse reports them.
//
// It runs on the crawl in $DOPPEL_ABUSE_DATA (opened read-only) if set,
// for $DOPPEL_ABUSE_SECONDS (default 3); otherwise on the demo intranet.
// Everything is on loopback addresses.
func TestAbuse(t *testing.T) {
	r := runAbuse(t)
	r.log(t)
	for k, kind := range r.kinds {
		s := r.attack[k]
		if s.requests() == 0 {
			t.Errorf("hostile %s: no request sent", kind.name)
		}
		if s.errs > 0 {
			t.Errorf("hostile %s: %d of %d requests not answered, first: %s", kind.name, s.errs, s.requests(), s.firstErr)
		}
		for c, n := range s.codes {
			if c >= 500 && c != http.StatusServiceUnavailable {
				t.Errorf("hostile %s: status %d ×%d", kind.name, c, n)
			}
		}
	}
	for _, x := range []struct {
		name string
		s    *tally
	}{{"during the attack", r.during}, {"after the attack", r.after}} {
		if x.s.errs > 0 {
			t.Errorf("ordinary queries %s: %d of %d failed, first: %s", x.name, x.s.errs, x.s.requests(), x.s.firstErr)
		}
		if len(x.s.latencies) == 0 {
			t.Errorf("no ordinary query answered %s", x.name)
		}
	}
	if r.backErr != nil || r.backCode != http.StatusOK {
		t.Errorf("an ordinary query from the attacker's address after the attack: %d %v, want 200", r.backCode, r.backErr)
	}
	if r.peakAttack > abuseMaxRSS {
		t.Errorf("peak RSS %d MB, want at most %d MB", r.peakAttack>>20, abuseMaxRSS>>20)
	}
}

// BenchmarkAbuse measures what TestAbuse checks the answers of: the
// ordinary users' latencies under the hostile mix, beside theirs alone
// right after it in the same run (the reference: same machine, same
// load), each as p50 and p99 in milliseconds, and the ordinary answers
// per second in each phase. One iteration is one attack; the figures
// are those of the last.
//
//	go test ./web/e2e -run XXX -bench BenchmarkAbuse -benchtime 1x
//	DOPPEL_ABUSE_DATA=DIR DOPPEL_ABUSE_SECONDS=20 go test ./web/e2e -run XXX -bench BenchmarkAbuse -benchtime 1x -timeout 0
func BenchmarkAbuse(b *testing.B) {
	var r *abuseRun
	for range b.N {
		r = runAbuse(b)
	}
	r.log(b)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, x := range []struct {
		name string
		s    *tally
		d    time.Duration
	}{{"attack", r.during, r.attackTime}, {"alone", r.after, abuseAfter}} {
		slices.Sort(x.s.latencies)
		b.ReportMetric(ms(pct(x.s.latencies, 50)), x.name+"-p50-ms")
		b.ReportMetric(ms(pct(x.s.latencies, 99)), x.name+"-p99-ms")
		b.ReportMetric(float64(len(x.s.latencies))/x.d.Seconds(), x.name+"-answers/s")
	}
	b.ReportMetric(0, "ns/op")
}

// An abuseRun is what one attack measured.
type abuseRun struct {
	name                   string
	kinds                  []hostile
	attack                 []*tally // per kind
	during, after          *tally   // the ordinary users'
	attackTime, cpu        time.Duration
	load                   string
	backCode               int
	backTime               time.Duration
	backErr                error
	peakBefore, peakAttack int64
	rssAttack, rssAfter    int64
	resetOK                bool
	stats                  web.Stats
}

// runAbuse runs the attack TestAbuse describes and returns what it
// measured.
func runAbuse(t testing.TB) *abuseRun {
	view, name := abuseTarget(t)
	d := abuseDuration(t)
	// Nobody is a trusted proxy: the attacker's X-Forwarded-For headers
	// do not make it many clients.
	srv, err := web.New(ranking.New(view.Index(), ranking.Options{}), web.Options{Text: view.Text,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := web.HTTPServer(srv, web.HTTPOptions{})
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()

	setup := clientFrom("127.0.0.1", 1, 30*time.Second)
	titles := searchTitles(t, setup, base)
	diffs := longPages(t, view, setup, base)
	setup.CloseIdleConnections()
	if len(titles) == 0 || len(diffs) == 0 {
		t.Fatalf("%s: %d titles to search for, %d near-duplicates to compare: want some of each", name, len(titles), len(diffs))
	}
	t.Logf("%s: %d titles to search for; what differs of %d near-duplicates of %d–%d words", name, len(titles),
		len(diffs), diffs[len(diffs)-1].words, diffs[0].words)
	titleQuery := func(i int) string { return base + "/api/search?q=" + url.QueryEscape(titles[i%len(titles)]) }
	big := strings.Repeat("a", 100<<10)
	kinds := []hostile{
		{"/.*/ (bleve syntax)", func(int) string { return "/api/search?syntax=bleve&q=" + url.QueryEscape("/.*/") }},
		{"*e* (bleve syntax)", func(int) string { return "/?syntax=bleve&q=" + url.QueryEscape("*e*") }},
		{"*e* (plain)", func(int) string { return "/api/search?q=" + url.QueryEscape("*e*") }},
		{"a~2 (bleve syntax)", func(int) string { return "/api/search?syntax=bleve&q=" + url.QueryEscape("a~2") }},
		{"100 kB query", func(i int) string {
			if i%2 == 0 {
				return "/?q=" + big
			}
			return "/api/search?syntax=bleve&q=" + big
		}},
		{"what differs, long pages", func(i int) string {
			dt := diffs[i%len(diffs)]
			p := "/diff/"
			if i%2 == 1 {
				p = "/api/diff/"
			}
			return p + url.PathEscape(dt.id) + "?cluster=" + url.QueryEscape(dt.cluster)
		}},
	}

	// Every ordinary query once before the clock starts (warms the
	// caches, as a server that has been up a while has them).
	warm := clientFrom("127.0.0.3", 1, 30*time.Second)
	for i := range titles {
		req, _ := http.NewRequest(http.MethodGet, titleQuery(i), nil)
		if code, _, err := get(warm, req); err != nil || code != http.StatusOK {
			t.Fatalf("%s: %d %v", titleQuery(i), code, err)
		}
	}
	warm.CloseIdleConnections()

	resetOK := resetPeak()
	peakBefore, _ := memory(t)

	// runUsers starts the ordinary users, who search for titles, one
	// query after the other, until stop is closed; wait waits for them.
	runUsers := func(stop <-chan struct{}, into *tally) (wait func()) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for u := range abuseUsers {
			wg.Go(func() {
				client := clientFrom(fmt.Sprintf("127.0.0.%d", 3+u), 1, 30*time.Second)
				defer client.CloseIdleConnections()
				for i := u * 37; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					req, _ := http.NewRequest(http.MethodGet, titleQuery(i), nil)
					code, d, err := get(client, req)
					if err == nil && code != http.StatusOK {
						err = fmt.Errorf("%.200s: status %d", titleQuery(i), code)
					}
					mu.Lock()
					into.add(code, d, err)
					mu.Unlock()
				}
			})
		}
		return wg.Wait
	}

	during, stopDuring := newTally(), make(chan struct{})
	waitDuring := runUsers(stopDuring, during)
	attack := make([]*tally, len(kinds))
	for k := range attack {
		attack[k] = newTally()
	}
	var attMu sync.Mutex
	var attWG sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cpu0, start := cpuTime(), time.Now()
	for c := range abuseClients {
		attWG.Go(func() {
			client := clientFrom(attacker, 1, abuseHang)
			defer client.CloseIdleConnections()
			xff := fmt.Sprintf("198.51.100.%d", c) // not believed
			for i := c; ctx.Err() == nil; i++ {
				k := i % len(kinds)
				req, _ := http.NewRequest(http.MethodGet, base+kinds[k].path(i/len(kinds)), nil)
				req.Header.Set("X-Forwarded-For", xff)
				code, d, err := get(client, req)
				attMu.Lock()
				attack[k].add(code, d, err)
				attMu.Unlock()
			}
		})
	}
	attWG.Wait()
	attackTime, cpu, load := time.Since(start), cpuTime()-cpu0, loadAverage()
	close(stopDuring)
	waitDuring()
	peakAttack, rssAttack := memory(t)

	// After the attack: the ordinary users alone, then the attacker's
	// address with one ordinary query.
	after, stopAfter := newTally(), make(chan struct{})
	waitAfter := runUsers(stopAfter, after)
	time.Sleep(abuseAfter)
	close(stopAfter)
	waitAfter()
	back := clientFrom(attacker, 1, abuseHang)
	req, _ := http.NewRequest(http.MethodGet, titleQuery(0), nil)
	backCode, backTime, backErr := get(back, req)
	back.CloseIdleConnections()
	_, rssAfter := memory(t)

	return &abuseRun{name: name, kinds: kinds, attack: attack, during: during, after: after, attackTime: attackTime, cpu: cpu,
		load: load, backCode: backCode, backTime: backTime, backErr: backErr, peakBefore: peakBefore, peakAttack: peakAttack,
		rssAttack: rssAttack, rssAfter: rssAfter, resetOK: resetOK, stats: srv.Stats()}
}

// log logs the run's figures: per kind of request, its count, statuses,
// failures and latencies.
func (r *abuseRun) log(t testing.TB) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\trequests\tstatuses\terrors\tp50\tp99\tmax\t\n")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }
	row := func(name string, s *tally) {
		slices.Sort(s.latencies)
		var cs []string
		for _, c := range slices.Sorted(func(yield func(int) bool) {
			for c := range s.codes {
				if !yield(c) {
					return
				}
			}
		}) {
			cs = append(cs, fmt.Sprintf("%d×%d", c, s.codes[c]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t\n", name, s.requests(), strings.Join(cs, " "), s.errs,
			ms(pct(s.latencies, 50)), ms(pct(s.latencies, 99)), ms(pct(s.latencies, 100)))
	}
	all := newTally()
	for k, kind := range r.kinds {
		row("hostile "+kind.name, r.attack[k])
		for c, n := range r.attack[k].codes {
			all.codes[c] += n
		}
		all.errs += r.attack[k].errs
		all.latencies = append(all.latencies, r.attack[k].latencies...)
	}
	row("hostile, all", all)
	row("ordinary, during the attack", r.during)
	row("ordinary, after the attack", r.after)
	tw.Flush()
	st := r.stats
	peakNote := ""
	if !r.resetOK {
		peakNote = " (since the process started: clear_refs not writable)"
	}
	t.Logf("abuse of %s: %d hostile clients from %s for %v, %d ordinary users; CPU used %.1f s (%.2f cores), load average %s\n%s"+
		"peak RSS %d MB%s (at the start of the attack %d MB), RSS after the attack %d MB, %v later %d MB\n"+
		"the attacker's address afterwards: %d in %v (%v)\n"+
		"limiter %+v; timeouts %d, too long %d, too broad %d; diffs %+v",
		r.name, abuseClients, attacker, r.attackTime.Round(time.Millisecond), abuseUsers, r.cpu.Seconds(), r.cpu.Seconds()/r.attackTime.Seconds(), r.load,
		b.String(), r.peakAttack>>20, peakNote, r.peakBefore>>20, r.rssAttack>>20, abuseAfter, r.rssAfter>>20,
		r.backCode, r.backTime.Round(time.Millisecond), r.backErr, st.Limiter, st.Timeouts, st.TooLong, st.TooBroad, st.Diff)
}
