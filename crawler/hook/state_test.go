package hook

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
)

// nightlySite is a loopback site for a nightly job: night 1 a home page
// and five pages, /b with a printer-friendly copy; night 2 (second) /a
// rewritten, /c gone (404), /f added, /b — a master with a copy — gone.
func nightlySite(t *testing.T) (s *site, second func()) {
	s = newSite(t)
	home := func(extra ...[2]string) {
		links := [][2]string{{"/a", "Travel claims"}, {"/b", "Holiday rules"}, {"/b/print", "Print holiday rules"},
			{"/c", "Parking"}, {"/d", "Canteen menu"}, {"/e", "Security badges"}}
		s.set("/", "Home", prose("welcome"), 0, append(links, extra...)...)
	}
	home()
	s.set("/a", "Travel", prose("travel expenses"), 0)
	s.set("/b", "Holidays", prose("holiday allowance"), 0)
	s.set("/b/print", "Holidays", prose("holiday allowance")+" Printer-friendly version.", 0)
	s.set("/c", "Parking", prose("parking permits"), 0)
	s.set("/d", "Canteen", prose("canteen menus"), 0)
	s.set("/e", "Security", prose("security badges"), 0)
	return s, func() {
		home([2]string{"/f", "Bicycle sheds"})
		s.set("/a", "Mileage", prose("mileage reimbursement"), 0)
		s.set("/b", "", "", http.StatusNotFound)
		s.set("/c", "", "", http.StatusNotFound)
		s.set("/f", "Bicycles", prose("bicycle sheds"), 0)
	}
}

// nightlyCollector is a user's collector: it follows every link.
func nightlyCollector(opts ...colly.CollectorOption) *colly.Collector {
	col := colly.NewCollector(opts...)
	col.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	return col
}

// openIndex opens Doppel's own index in dir, reading what it lacks from
// *h's pages.
func openIndex(t *testing.T, dir string, h **Hook) *indexer.Index {
	t.Helper()
	ix, err := indexer.Open(dir, indexer.Options{Source: indexer.SourceFunc(func(ctx context.Context, id string) (*indexer.Doc, error) {
		return (*h).SourceDoc(ctx, id)
	})})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// indexContent is everything an index holds of its documents: each one
// by id, as stored, and the members of each cluster.
func indexContent(t *testing.T, ix *indexer.Index, base string) map[string]any {
	t.Helper()
	out := map[string]any{}
	err := ix.EachID(func(id string) error {
		d, err := ix.Document(id)
		if err != nil {
			return err
		}
		ms, err := ix.Members(d.Cluster)
		if err != nil {
			return err
		}
		out[strings.TrimPrefix(id, base)] = *d
		out["members of "+strings.TrimPrefix(id, base)] = ms
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// assignments returns where the detector puts each page.
func assignments(det *dedup.Detector) []dedup.Assignment {
	as := det.Assignments()
	slices.SortFunc(as, func(a, b dedup.Assignment) int { return strings.Compare(a.ID, b.ID) })
	return as
}

// TestOpenNightly: a nightly job — each night a new process, here a new
// Hook on the same state directory, a new collector and the index opened
// again — gives the index a long-running process gives (one hook, one
// collector revisiting): every document as stored and every cluster's
// members, the detector's clusters and counters. The second night's
// unchanged pages are updates, /c (404) and /b (a master gone) are
// removed, and /b's copy is master in its place.
func TestOpenNightly(t *testing.T) {
	s, second := nightlySite(t)
	base := s.srv.URL
	ctx := t.Context()
	tmp := t.TempDir()

	// One long-running process.
	var long *Hook
	longIx := openIndex(t, filepath.Join(tmp, "long.idx"), &long)
	defer longIx.Close()
	longCol := nightlyCollector(colly.AllowURLRevisit())
	long, err := Attach(ctx, longCol, Options{Index: longIx})
	if err != nil {
		t.Fatal(err)
	}
	night := func(h *Hook, col *colly.Collector) {
		t.Helper()
		if err := col.Visit(base + "/"); err != nil {
			t.Fatal(err)
		}
		if err := h.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Err(); err != nil {
			t.Fatal(err)
		}
	}

	// A new process each night.
	state, idxDir := filepath.Join(tmp, "state"), filepath.Join(tmp, "nightly.idx")
	process := func() (*indexer.Index, *Hook) {
		t.Helper()
		var h *Hook
		ix := openIndex(t, idxDir, &h)
		h, err := Open(state, Options{Index: ix})
		if err != nil {
			t.Fatal(err)
		}
		return ix, h
	}
	run := func(n int) (map[string]any, []dedup.Assignment, dedup.Stats) {
		t.Helper()
		ix, h := process()
		col := nightlyCollector()
		h.Attach(ctx, col)
		night(h, col)
		content, as, st := indexContent(t, ix, base), assignments(h.Detector()), h.Detector().Stats()
		if err := h.Close(); err != nil {
			t.Fatalf("night %d: Close: %v", n, err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		return content, as, st
	}

	for n := 1; n <= 2; n++ {
		if n == 2 {
			second()
		}
		night(long, longCol)
		got, gotAs, gotStats := run(n)
		want := indexContent(t, longIx, base)
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("night %d: %s:\n new process each night %+v\n long-running process   %+v", n, k, got[k], want[k])
			}
		}
		if len(got) != len(want) {
			t.Errorf("night %d: %d entries in the nightly index, %d in the long-running one", n, len(got), len(want))
		}
		if wantAs := assignments(long.Detector()); !reflect.DeepEqual(gotAs, wantAs) {
			t.Errorf("night %d: detector\n new process each night %+v\n long-running process   %+v", n, gotAs, wantAs)
		}
		if wantStats := long.Detector().Stats(); gotStats != wantStats {
			t.Errorf("night %d: detector counters\n new process each night %+v\n long-running process   %+v", n, gotStats, wantStats)
		}
		if n == 2 {
			if _, ok := got["/c"]; ok {
				t.Error("night 2: /c answers 404 and is still in the index")
			}
			if d, ok := got["/b/print"].(indexer.Doc); !ok || !d.Master {
				t.Errorf("night 2: /b/print %+v, want it master in /b's place", got["/b/print"])
			}
			if gotStats.Replaced == 0 || gotStats.Removed != 2 || gotStats.Documents != 6 {
				t.Errorf("night 2: detector counters %+v, want updates, 2 removed, 6 pages", gotStats)
			}
		}
	}
}

// TestOpenAfterCrash: the state of a process killed after its pages were
// committed and before the detector's snapshot was replaced (here: night
// 1's snapshot put back after night 2) is restored by putting night 2's
// pages through the detector again: the same clusters and masters, and
// the third night goes through.
func TestOpenAfterCrash(t *testing.T) {
	s, second := nightlySite(t)
	base := s.srv.URL
	ctx := t.Context()
	state := filepath.Join(t.TempDir(), "state")
	var h *Hook
	ix := openIndex(t, filepath.Join(t.TempDir(), "idx"), &h)
	defer ix.Close()
	night := func() []dedup.Assignment {
		t.Helper()
		var err error
		if h, err = Open(state, Options{Index: ix}); err != nil {
			t.Fatal(err)
		}
		col := nightlyCollector()
		h.Attach(ctx, col)
		if err := col.Visit(base + "/"); err != nil {
			t.Fatal(err)
		}
		if err := h.Flush(ctx); err != nil || h.Err() != nil {
			t.Fatalf("Flush %v, Err %v", err, h.Err())
		}
		as := assignments(h.Detector())
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		return as
	}
	night()
	snap, err := os.ReadFile(filepath.Join(state, stateSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	second()
	want := night()
	if err := os.WriteFile(filepath.Join(state, stateSnapshot), snap, 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err = Open(state, Options{Index: ix}); err != nil {
		t.Fatal(err)
	}
	if got := assignments(h.Detector()); !reflect.DeepEqual(got, want) {
		t.Errorf("after the crash\n restored %+v\n want     %+v", got, want)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if got := night(); !reflect.DeepEqual(got, want) {
		t.Errorf("the night after the crash\n got  %+v\n want %+v", got, want)
	}
}

// TestOpenDamaged: a damaged file of the state directory gives one error
// wrapping ErrState that names it; options Open sets itself are refused.
func TestOpenDamaged(t *testing.T) {
	s, _ := nightlySite(t)
	good := filepath.Join(t.TempDir(), "state")
	h, err := Open(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	col := nightlyCollector()
	h.Attach(t.Context(), col)
	if err := col.Visit(s.srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file   string
		damage func([]byte) []byte
	}{
		{stateSnapshot, func(b []byte) []byte { b[len(b)/2] ^= 0xff; return b }},
		{stateSnapshot, func(b []byte) []byte { return b[:len(b)-20] }},
		{stateRecords, func(b []byte) []byte { return []byte(strings.Repeat("not a page store ", 1000)) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := Open(dir, Options{})
			if err == nil {
				h.Close()
			}
			if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), dir) {
				t.Errorf("Open of a damaged %s = %v; want ErrState naming it", tc.file, err)
			}
		})
	}
	for name, opts := range map[string]Options{"Detector": {Detector: h.Detector()}, "NoDedup": {NoDedup: true},
		"Source": {Source: func(string) (Page, bool, error) { return Page{}, false, nil }}} {
		if _, err := Open(t.TempDir(), opts); err == nil || !strings.Contains(err.Error(), "Options."+name) {
			t.Errorf("Open with Options.%s = %v, want it refused", name, err)
		}
	}
}

// killAfterFlush is a Sink that kills its process (SIGKILL) once the
// index's Flush has returned: a nightly job killed after its index was
// written and before the hook's state was saved.
type killAfterFlush struct{ Sink }

func (k killAfterFlush) Flush(ctx context.Context) error {
	if err := k.Sink.Flush(ctx); err != nil {
		return err
	}
	p, _ := os.FindProcess(os.Getpid())
	p.Signal(os.Kill)
	select {}
}

// TestOpenKilled: night 2 of a nightly job killed (SIGKILL, a child
// process) after its index was written and before its state was saved,
// then run again: the index, clusters and counters equal a long-running
// process's after the same two nights.
func TestOpenKilled(t *testing.T) {
	if env := os.Getenv("DOPPEL_HOOK_KILLED"); env != "" { // the child: night 2, killed
		f := strings.SplitN(env, "|", 3) // state, index, seed
		state, idxDir, url := f[0], f[1], f[2]
		var h *Hook
		ix := openIndex(t, idxDir, &h)
		h, err := Open(state, Options{Index: killAfterFlush{ix}})
		if err != nil {
			t.Fatal(err)
		}
		col := nightlyCollector()
		h.Attach(t.Context(), col)
		if err := col.Visit(url); err != nil {
			t.Fatal(err)
		}
		t.Fatal(h.Flush(t.Context()), "not killed")
	}
	s, second := nightlySite(t)
	base := s.srv.URL
	ctx := t.Context()
	tmp := t.TempDir()
	state, idxDir := filepath.Join(tmp, "state"), filepath.Join(tmp, "idx")
	nightly := func() (map[string]any, []dedup.Assignment, dedup.Stats) {
		t.Helper()
		var h *Hook
		ix := openIndex(t, idxDir, &h)
		defer ix.Close()
		h, err := Open(state, Options{Index: ix})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		col := nightlyCollector()
		h.Attach(ctx, col)
		if err := col.Visit(base + "/"); err != nil {
			t.Fatal(err)
		}
		if err := h.Flush(ctx); err != nil || h.Err() != nil {
			t.Fatalf("Flush %v, Err %v", err, h.Err())
		}
		return indexContent(t, ix, base), assignments(h.Detector()), h.Detector().Stats()
	}
	var long *Hook
	longIx := openIndex(t, filepath.Join(tmp, "long.idx"), &long)
	defer longIx.Close()
	longCol := nightlyCollector(colly.AllowURLRevisit())
	long, err := Attach(ctx, longCol, Options{Index: longIx})
	if err != nil {
		t.Fatal(err)
	}
	longNight := func() {
		t.Helper()
		if err := longCol.Visit(base + "/"); err != nil {
			t.Fatal(err)
		}
		if err := long.Flush(ctx); err != nil || long.Err() != nil {
			t.Fatalf("Flush %v, Err %v", err, long.Err())
		}
	}

	nightly()
	longNight()
	second()
	longNight()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestOpenKilled$")
	child.Env = append(os.Environ(), "DOPPEL_HOOK_KILLED="+state+"|"+idxDir+"|"+base+"/")
	out, err := child.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child night: %v, want it killed:\n%s", err, out)
	}
	got, gotAs, gotStats := nightly()
	want := indexContent(t, longIx, base)
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s:\n killed, then run again %+v\n long-running process   %+v", k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d entries in the nightly index, %d in the long-running one", len(got), len(want))
	}
	if wantAs := assignments(long.Detector()); !reflect.DeepEqual(gotAs, wantAs) {
		t.Errorf("detector\n killed, then run again %+v\n long-running process   %+v", gotAs, wantAs)
	}
	if wantStats := long.Detector().Stats(); gotStats != wantStats {
		t.Errorf("detector counters\n killed, then run again %+v\n long-running process   %+v", gotStats, wantStats)
	}
}
