package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The bounds catch a browser that hangs; they are not speed limits. On a
// 2-core machine at load average 40, starting Chromium alone takes 10–20 s
// and a scenario 18–60 s; at load average 60–70, starting Chromium took
// 55–59 s and TestAccessibility, TestKeyboard and TestLayout each ran past
// bounds of 2 minutes a scenario and 5 a test, on pages that passed.
const (
	// suiteTimeout bounds all browser scenarios of one test together.
	suiteTimeout = 15 * time.Minute
	// scenarioTimeout bounds one scenario, browser start included.
	scenarioTimeout = 5 * time.Minute
)

// chromiumPath returns Debian's /usr/bin/chromium, or chromium on PATH, or "".
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

var (
	artifactsOnce sync.Once
	artifactsDir  string
	artifactsErr  error
)

// artifacts returns the directory screenshots go to: $DOPPEL_ARTIFACTS, or
// a new directory under os.TempDir(), kept after the test.
func artifacts(t *testing.T) string {
	t.Helper()
	artifactsOnce.Do(func() {
		if d := os.Getenv("DOPPEL_ARTIFACTS"); d != "" {
			artifactsDir, artifactsErr = filepath.Abs(d)
			if artifactsErr == nil {
				artifactsErr = os.MkdirAll(artifactsDir, 0o755)
			}
			return
		}
		artifactsDir, artifactsErr = os.MkdirTemp("", "doppel-e2e-artifacts-")
	})
	if artifactsErr != nil {
		t.Fatalf("artifacts directory: %v", artifactsErr)
	}
	return artifactsDir
}

// TestBrowser drives the search UI in headless Chromium. Each scenario
// gets its own browser (and profile, so the demo-user cookie does not leak
// between scenarios) and saves a PNG screenshot of every step.
func TestBrowser(t *testing.T) {
	scenarios(t, []scenario{
		{"search", searchVPN},
		{"expand-cluster", expandCluster},
		{"what-differs", whatDiffers},
		{"paging", paging},
		{"demo-user", switchUser},
		{"status-hosts", statusHosts},
		{"complete-as-you-type", completeAsYouType},
	})
}

// A scenario is one browser session's steps.
type scenario struct {
	name string
	run  func(*browser)
}

// scenarios runs each scenario in a new browser, all within suiteTimeout;
// it skips t when Chromium is missing (fails it under
// DOPPEL_REQUIRE_BROWSER=1).
func scenarios(t *testing.T, list []scenario) {
	exe := chromiumPath()
	if exe == "" {
		msg := "Chromium not found (neither /usr/bin/chromium nor chromium on PATH); install it with " +
			"`apt-get install chromium chromium-driver` to run the browser tests"
		if os.Getenv("DOPPEL_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg + " (DOPPEL_REQUIRE_BROWSER=1: required)")
		}
		t.Skip(msg + ", or set DOPPEL_REQUIRE_BROWSER=1 to make this a failure")
	}
	f := demo(t)
	dir := artifacts(t)
	t.Logf("browser %s; screenshots in %s", exe, dir)
	suiteCtx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	start := time.Now()
	for _, sc := range list {
		t.Run(sc.name, func(t *testing.T) {
			sc.run(newBrowser(t, suiteCtx, exe, f, dir))
		})
	}
	t.Logf("browser scenarios took %v", time.Since(start).Round(time.Millisecond))
}

// browser is one headless Chromium with one tab, for one scenario.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string // the search UI
	admin string // the administrators' handler (the status page)
	site  string // the demo intranet: the prefix of every result URL
	dir   string // screenshots
	step  int
}

// syncBuffer collects the browser's output for failure reports.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newBrowser(t *testing.T, suite context.Context, exe string, f *fixture, dir string) *browser {
	profile := t.TempDir() // removed after the browser is gone (cleanups run last-in first-out)
	out := &syncBuffer{}
	ctx, cancelTimeout := context.WithTimeout(suite, scenarioTimeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), // /dev/shm is small in many containers
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.CombinedOutput(out),
	)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	b := &browser{t: t, ctx: tabCtx, base: f.search.URL, admin: f.admin.URL, site: f.siteURL, dir: dir}
	t.Cleanup(func() {
		if t.Failed() {
			if tabCtx.Err() == nil {
				if png, err := chromedp.Run(tabCtx, chromedp.FullScreenshot(100)); err == nil {
					b.save("failure", png)
				}
			}
			if s := out.String(); s != "" {
				if len(s) > 4000 {
					s = "…" + s[len(s)-4000:]
				}
				t.Logf("browser output:\n%s", s)
			}
		}
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		cancelTimeout()
	})
	started := time.Now()
	b.do("starting the browser", chromedp.Navigate("about:blank"))
	t.Logf("browser started in %v", time.Since(started).Round(time.Millisecond))
	return b
}

// do runs actions, failing the test with what was being done.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// run runs one action that returns a value.
func run[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// shot saves a full-page PNG screenshot of the current step.
func (b *browser) shot(name string) {
	b.t.Helper()
	b.save(name, run(b, "screenshot "+name, chromedp.FullScreenshot(100)))
}

func (b *browser) save(name string, png []byte) {
	b.step++
	file := filepath.Join(b.dir, fmt.Sprintf("%s-%02d-%s.png", strings.ReplaceAll(b.t.Name(), "/", "_"), b.step, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Errorf("saving screenshot: %v", err)
		return
	}
	b.t.Logf("screenshot %s", file)
}

// path strips the demo intranet's address from a result URL.
func (b *browser) path(u string) string { return strings.TrimPrefix(u, b.site) }

// hit is a result as the search page shows it.
type hit struct {
	Cluster string `json:"cluster"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
	Marks   int    `json:"marks"`   // highlighted words in the snippet
	Similar string `json:"similar"` // the "N similar pages" summary, if any
}

const hitsJS = `[...document.querySelectorAll('ol#results > li.hit')].map(li => {
	const a = li.querySelector('a.title'), s = li.querySelector('p.snippet'), sum = li.querySelector('details.similar > summary');
	return {cluster: li.dataset.cluster || '', url: a ? a.getAttribute('href') : '', title: a ? a.textContent : '',
		snippet: s ? s.textContent : '', marks: s ? s.querySelectorAll('mark').length : 0, similar: sum ? sum.textContent.trim() : ''};
})`

// hits returns the results on the page.
func (b *browser) hits() []hit {
	b.t.Helper()
	return run(b, "reading the results", chromedp.Evaluate[[]hit](hitsJS))
}

func (b *browser) paths(hs []hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, b.path(h.URL))
	}
	return out
}

// findHit returns the hit for the demo page path, and its rank from 1.
func (b *browser) findHit(hs []hit, path string) (hit, int) {
	for i, h := range hs {
		if h.URL == b.site+path {
			return h, i + 1
		}
	}
	return hit{}, 0
}

var similarRE = regexp.MustCompile(`^(\d+) similar pages?$`)

const vpnPage = "/manual/vpn.html"

// searchVPN types a query into the search box and submits it.
func searchVPN(b *browser) {
	t := b.t
	b.do("opening the search page", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.ID("q")))
	b.shot("home")
	b.do("typing the query", chromedp.SendKeys(chromedp.ID("q"), "vpn"))
	b.shot("typed")
	b.do("submitting", chromedp.Submit(chromedp.ID("q")), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	b.shot("results")

	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("q") != "vpn" {
		t.Errorf("after submitting, the location is %q, want q=vpn", loc)
	}
	if q := run(b, "reading #q", chromedp.Value(chromedp.ID("q"))); q != "vpn" {
		t.Errorf("the search box holds %q after the search, want vpn", q)
	}
	total := run(b, "reading #total", chromedp.Text(chromedp.ID("total")))
	if !regexp.MustCompile(`^(About )?\d+(–\d+)? results`).MatchString(total) {
		t.Errorf("#total = %q, want \"N results\"", total)
	}
	hs := b.hits()
	t.Logf("%s; results: %v", total, b.paths(hs))
	if len(hs) == 0 {
		t.Fatal("no results for vpn")
	}
	vpn, rank := b.findHit(hs, vpnPage)
	switch {
	case rank == 0:
		t.Fatalf("the VPN manual page %s is not among the results %v", vpnPage, b.paths(hs))
	case rank > 1:
		t.Logf("the VPN manual page is result %d, not the first", rank)
	}
	if vpn.Title != "Connecting to the VPN" {
		t.Errorf("the VPN result's title is %q", vpn.Title)
	}
	if !similarRE.MatchString(vpn.Similar) {
		t.Errorf("the VPN result has no \"N similar pages\" summary (got %q)", vpn.Similar)
	}
	if vpn.Marks == 0 || !strings.Contains(strings.ToLower(vpn.Snippet), "vpn") {
		t.Errorf("the VPN result's snippet highlights nothing: %q (%d marks)", vpn.Snippet, vpn.Marks)
	}
}

// openVPNCluster searches vpn and clicks the VPN result's "similar pages"
// summary; it returns the selector of the result's <details>.
func openVPNCluster(b *browser) string {
	t := b.t
	b.do("searching vpn", chromedp.Navigate(b.base+"/?q=vpn"), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	vpn, rank := b.findHit(b.hits(), vpnPage)
	if rank == 0 {
		t.Fatalf("the VPN manual page %s is not among the results", vpnPage)
	}
	details := fmt.Sprintf(`ol#results > li.hit[data-cluster=%s] > details.similar`, strconv.Quote(vpn.Cluster))
	open := run(b, "reading the member list's visibility", chromedp.Evaluate[bool](
		fmt.Sprintf(`(() => { const d = document.querySelector(%s); return !!d && d.open && d.querySelector('li.member').checkVisibility(); })()`, strconv.Quote(details))))
	if open {
		t.Errorf("the member list is visible before the summary is clicked")
	}
	b.shot("collapsed")
	b.do("clicking the similar-pages summary", chromedp.Click(chromedp.CSS(details+" > summary")),
		chromedp.WaitVisible(chromedp.CSS(details+" li.member")))
	return details
}

// member is a cluster member as the expanded list shows it.
type member struct {
	URL     string `json:"url"`
	Diff    string `json:"diff"`
	Visible bool   `json:"visible"`
}

// expandCluster opens the VPN result's cluster and checks its members.
func expandCluster(b *browser) {
	t := b.t
	details := openVPNCluster(b)
	b.shot("expanded")
	ms := run(b, "reading the members", chromedp.Evaluate[[]member](fmt.Sprintf(
		`[...document.querySelectorAll(%s)].map(li => ({url: li.querySelector('a').getAttribute('href'),
			diff: (li.querySelector('a.diff') || {href: ''}).href, visible: li.checkVisibility()}))`,
		strconv.Quote(details+" li.member"))))
	summary := run(b, "reading the summary", chromedp.Text(chromedp.CSS(details+" > summary")))
	var paths []string
	for _, m := range ms {
		paths = append(paths, b.path(m.URL))
		if !m.Visible {
			t.Errorf("member %s is not visible after expanding", m.URL)
		}
		if m.Diff == "" {
			t.Errorf("member %s has no \"what differs\" link", m.URL)
		}
	}
	t.Logf("%s: %v", summary, paths)
	if m := similarRE.FindStringSubmatch(summary); m == nil || m[1] != strconv.Itoa(len(ms)) {
		t.Errorf("summary %q, but %d members listed", summary, len(ms))
	}
	for _, want := range []string{"/print" + vpnPage, "/mirror/it" + vpnPage} {
		if !slices.Contains(paths, want) {
			t.Errorf("the VPN cluster's members %v lack %s", paths, want)
		}
	}
}

// whatDiffers opens the "what differs" view of the VPN page's mirror.
func whatDiffers(b *browser) {
	t := b.t
	details := openVPNCluster(b)
	link := details + ` li.member:has(a[href$="/mirror/it/manual/vpn.html"]) a.diff`
	b.do("clicking what differs", chromedp.Click(chromedp.CSS(link)), chromedp.WaitVisible(chromedp.ID("diff")))
	b.shot("diff")
	if h1 := run(b, "reading the heading", chromedp.Text(chromedp.CSS("main h1"))); h1 != "What differs" {
		t.Errorf("heading %q, want What differs", h1)
	}
	type edits struct {
		Ins  []string `json:"ins"`
		Del  []string `json:"del"`
		Same bool     `json:"same"`
	}
	e := run(b, "reading the diff", chromedp.Evaluate[edits](`({
		ins: [...document.querySelectorAll('#diff ins')].map(e => e.textContent),
		del: [...document.querySelectorAll('#diff del')].map(e => e.textContent),
		same: !!document.querySelector('#same')})`))
	t.Logf("diff of the mirror: inserted %q, deleted %q", e.Ins, e.Del)
	if len(e.Ins)+len(e.Del) == 0 {
		t.Errorf("#diff has no <ins> or <del> (identical: %v)", e.Same)
	}
	// The mirror says "the IT service desk" where the manual says "the service desk".
	if !slices.Contains(e.Ins, "IT") {
		t.Errorf("the mirror's diff does not insert IT: ins %q del %q", e.Ins, e.Del)
	}
}

// pagingQuery matches more than 20 clusters in the demo (about 40 for guest).
const pagingQuery = "service desk"

// paging pages through a broad query with #next and #prev.
func paging(b *browser) {
	t := b.t
	b.do("searching", chromedp.Navigate(b.base+"/?q="+url.QueryEscape(pagingQuery)), chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	b.shot("page1")
	total1 := run(b, "reading #total", chromedp.Text(chromedp.ID("total")))
	p1 := b.hits()
	if n := run(b, "counting #prev", chromedp.Evaluate[int](`document.querySelectorAll('#prev').length`)); n != 0 {
		t.Errorf("page 1 has a #prev link")
	}
	if len(p1) != 10 {
		t.Fatalf("page 1 of %q has %d results (%s), want 10", pagingQuery, len(p1), total1)
	}
	b.do("clicking #next", chromedp.Click(chromedp.ID("next")), chromedp.WaitVisible(chromedp.ID("prev")),
		chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit")))
	b.shot("page2")
	total2 := run(b, "reading #total", chromedp.Text(chromedp.ID("total")))
	p2 := b.hits()
	loc := run(b, "location", chromedp.Location())
	t.Logf("%s / %s; page 1 %v; page 2 %v", total1, total2, b.paths(p1), b.paths(p2))
	if u, err := url.Parse(loc); err != nil || u.Query().Get("page") != "2" || u.Query().Get("q") != pagingQuery {
		t.Errorf("page 2's location is %q", loc)
	}
	if !strings.Contains(total2, "page 2") {
		t.Errorf("#total on page 2 = %q, want it to say page 2", total2)
	}
	if start := run(b, "reading the list start", chromedp.Evaluate[int](`document.querySelector('ol#results').start`)); start != 11 {
		t.Errorf("page 2's list starts at %d, want 11", start)
	}
	if len(p2) == 0 {
		t.Fatal("page 2 has no results")
	}
	seen := map[string]bool{}
	for _, h := range p1 {
		seen[h.Cluster] = true
	}
	for _, h := range p2 {
		if h.Cluster == "" {
			t.Errorf("result %s has no data-cluster", h.URL)
		}
		if seen[h.Cluster] {
			t.Errorf("cluster %s (%s) is on page 1 and page 2", h.Cluster, b.path(h.URL))
		}
		seen[h.Cluster] = true
	}
	// And back: the same first page.
	b.do("clicking #prev", chromedp.Click(chromedp.ID("prev")), chromedp.WaitVisible(chromedp.ID("next")),
		chromedp.WaitNotPresent(chromedp.ID("prev")))
	b.shot("page1-again")
	var c1, again []string
	for _, h := range p1 {
		c1 = append(c1, h.Cluster)
	}
	for _, h := range b.hits() {
		again = append(again, h.Cluster)
	}
	if !slices.Equal(c1, again) {
		t.Errorf("page 1 after #prev shows clusters %v, first time %v", again, c1)
	}
}

// hrQuery matches HR pages (for hr-staff) and public pages (for everybody).
const hrQuery = "salary"

// switchUser switches the demo user from guest to hr-staff and back.
func switchUser(b *browser) {
	t := b.t
	hr := func(hs []hit) []string {
		var out []string
		for _, p := range b.paths(hs) {
			if strings.HasPrefix(p, "/hr/") {
				out = append(out, p)
			}
		}
		return out
	}
	results := chromedp.WaitVisible(chromedp.CSS("ol#results > li.hit"))
	user := func() string { return run(b, "reading the demo user", chromedp.Value(chromedp.ID("user"))) }

	b.do("searching as guest", chromedp.Navigate(b.base+"/?q="+hrQuery), results)
	b.shot("guest")
	if u := user(); u != "guest" {
		t.Errorf("the default demo user is %q, want guest", u)
	}
	guest := b.hits()
	t.Logf("guest: %v", b.paths(guest))
	if len(guest) == 0 {
		t.Errorf("guest finds nothing for %q", hrQuery)
	}
	if p := hr(guest); len(p) > 0 {
		t.Errorf("guest sees HR pages %v", p)
	}

	b.do("switching to hr-staff", chromedp.SetValue(chromedp.ID("user"), "hr-staff"), chromedp.Click(chromedp.ID("switch")),
		chromedp.WaitReady(chromedp.CSS(`select#user option[value="hr-staff"][selected]`)), results)
	b.shot("hr-staff")
	loc := run(b, "location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("user") != "hr-staff" || u.Query().Get("q") != hrQuery {
		t.Errorf("after switching, the location is %q, want user=hr-staff and q=%s", loc, hrQuery)
	}
	staff := b.hits()
	t.Logf("hr-staff: %v", b.paths(staff))
	if len(hr(staff)) == 0 {
		t.Errorf("hr-staff sees no HR pages for %q: %v", hrQuery, b.paths(staff))
	}

	// The choice is remembered (cookie) without the user parameter.
	b.do("searching again as hr-staff", chromedp.Navigate(b.base+"/?q="+hrQuery), results)
	if u := user(); u != "hr-staff" {
		t.Errorf("the demo user is %q after a new search, want hr-staff (cookie)", u)
	}
	if len(hr(b.hits())) == 0 {
		t.Errorf("hr-staff's second search shows no HR pages")
	}

	b.do("switching back to guest", chromedp.SetValue(chromedp.ID("user"), "guest"), chromedp.Click(chromedp.ID("switch")),
		chromedp.WaitReady(chromedp.CSS(`select#user option[value="guest"][selected]`)), results)
	b.shot("guest-again")
	if p := hr(b.hits()); len(p) > 0 {
		t.Errorf("guest sees HR pages %v after switching back", p)
	}
}
