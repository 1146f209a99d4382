package crawler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/doppel-search/doppel/internal/demosite"
)

// TestRestartWithoutReplay checks that a crawl reopened reads its
// detector from the snapshot its last run wrote and replays no page,
// and that the state it resumes to — records, clusters, searchable pages
// — is the one a full replay gives. An old snapshot (written mid-crawl)
// has the pages recorded after it replayed, to the same state; a damaged
// one is ignored and every page replayed.
func TestRestartWithoutReplay(t *testing.T) {
	s := newSite(t, demosite.Handler())
	dir := t.TempDir()
	opts := testOptions(s.URL + "/")
	opts.MaxPages = 12 // a first run that stops mid-crawl
	crawl(t, dir, opts).Close()
	old := t.TempDir() // the snapshot of the first run, and its sets
	for _, f := range []string{snapshotFile, setsFile} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(old, f))
	}
	opts.MaxPages = 0
	first := crawl(t, dir, opts)
	want := outcomeOf(t, first)
	first.Close()

	reopen := func(what string, fromSnapshot bool, replayed func(pages int) bool) {
		t.Helper()
		c, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		o := c.Opened()
		if o.FromSnapshot != fromSnapshot || o.Pages != len(want.master) || !replayed(o.Replayed) {
			t.Errorf("%s: opened %+v (%d pages fetched)", what, o, len(want.master))
		}
		if d := want.diff(outcomeOf(t, c)); d != "" {
			t.Errorf("%s: resumed to another state:\n%s", what, d)
		}
	}
	reopen("snapshot of the last run", true, func(n int) bool { return n == 0 })
	for _, f := range []string{snapshotFile, setsFile} {
		copyFile(t, filepath.Join(old, f), filepath.Join(dir, f))
	}
	reopen("older snapshot", true, func(n int) bool { return n > 0 && n < len(want.master) })
	reopen("snapshot written by the last open", true, func(n int) bool { return n == 0 })
	snap := filepath.Join(dir, snapshotFile)
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	reopen("damaged snapshot", false, func(n int) bool { return n == len(want.master) })
	reopen("snapshot after a full replay", true, func(n int) bool { return n == 0 })
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
