package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler"
)

// A damage is done to one file of a data directory: do gives its new
// bytes; nil do deletes it.
type damage struct {
	name string
	do   func(data []byte) []byte
}

// damages delete a file, cut it to nothing or to half, or garble 64
// bytes at its start, middle or near its end.
var damages = []damage{
	{"deleted", nil},
	{"empty", func([]byte) []byte { return nil }},
	{"half", func(b []byte) []byte { return b[:len(b)/2] }},
	{"garbled-start", func(b []byte) []byte { return garble(b, 0) }},
	{"garbled-middle", func(b []byte) []byte { return garble(b, len(b)/2) }},
	{"garbled-end", func(b []byte) []byte { return garble(b, len(b)-len(b)/16-64) }},
}

// garble overwrites 64 bytes of b from at with a pattern.
func garble(b []byte, at int) []byte {
	b = slices.Clone(b)
	at = max(at, 0)
	for i := at; i < min(at+64, len(b)); i++ {
		b[i] ^= 0xA5 ^ byte(i)
	}
	return b
}

// copyDir copies the data directory src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// storeFiles lists the files of a data directory, relative to it.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

// runNoPanic runs a command line in-process and fails the test if it
// panics.
func runNoPanic(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("doppel %s panicked: %v", strings.Join(args, " "), r)
		}
	}()
	var o, e bytes.Buffer
	code = run(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// TestDamagedStores damages every file of a crawl's data directory in
// every way (cut to nothing, to half, garbled at the start, middle and
// end), then runs crawl, serve, export and check on it: none panics;
// each either refuses with one line naming the damaged store and saying
// to run doppel check, or (a damage in bytes no store reads, such as a
// free page) works and exports what it did before; doppel check then
// repairs, and the export equals the one before the damage but for what
// the repair says is lost.
func TestDamagedStores(t *testing.T) {
	_, base, _ := crawled(t, fullCrawl)
	_, want, _ := doppel(t, "export", "--data", base)
	wantFetched := fetchedIndexed(t, want)
	if len(wantFetched) < 10 {
		t.Fatalf("the crawl indexed %d pages; want at least 10", len(wantFetched))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	files := append(storeFiles(t, base), "index") // and the index's folder, deleted whole
	for _, file := range files {
		for _, dmg := range damages {
			if file == "index" && dmg.do != nil {
				continue
			}
			t.Run(file+"/"+dmg.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "data")
				copyDir(t, base, dir)
				path := filepath.Join(dir, file)
				var data []byte
				var err error
				if dmg.do == nil {
					err = os.RemoveAll(path)
				} else if data, err = os.ReadFile(path); err == nil {
					err = os.WriteFile(path, dmg.do(data), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				refused, serveRefused := 0, false
				for _, args := range [][]string{
					{"export", "--data", dir},
					{"serve", "--data", dir, "--addr", "127.0.0.1:0"},
					{"crawl", "--once", "--data", dir},
				} {
					ctx := context.Background()
					if args[0] == "serve" {
						ctx = cancelled // serve opens the stores, then stops at once
					}
					code, stdout, stderr := runNoPanic(t, ctx, args...)
					if code == 0 {
						if args[0] == "export" && stdout != want {
							t.Errorf("export of a damaged %s exits 0 with another export:\n%s\nwant\n%s", file, stdout, want)
						}
						continue
					}
					refused++
					serveRefused = serveRefused || args[0] == "serve"
					lines := strings.Split(strings.TrimSpace(stderr), "\n")
					top := strings.Split(file, string(filepath.Separator))[0]
					hint := "doppel check"
					if file == "crawl.json" { // the user's own settings: nothing to rebuild them from
						hint = "pass the seeds again"
					}
					if len(lines) != 1 || !strings.Contains(lines[0], top) || !strings.Contains(lines[0], hint) {
						t.Errorf("%s on a damaged %s: exit %d, stderr %q; want one line naming %s and %q", args[0], file, code, stderr, top, hint)
					}
				}
				if refused != 0 && refused != 3 && !(refused == 2 && !serveRefused) {
					t.Errorf("%d of export, serve, crawl refused the damaged %s; want all or none (serve reads no record when it starts)", refused, file)
				}
				if code, stdout, _ := runNoPanic(t, context.Background(), "check", "--data", dir, "--dry-run"); refused > 0 && code == 0 {
					t.Errorf("check --dry-run finds nothing wrong with a damaged %s that the commands refuse:\n%s", file, stdout)
				}
				code, stdout, stderr := runNoPanic(t, context.Background(), "check", "--data", dir)
				repairable := file != "crawl.json"
				if code != 0 {
					if repairable {
						t.Fatalf("check did not repair a damaged %s: exit %d\n%s%s", file, code, stdout, stderr)
					}
					return
				}
				if refused > 0 {
					if m, _ := filepath.Glob(filepath.Join(dir, "*.damaged-*")); len(m) == 0 {
						t.Errorf("check repaired %s without keeping the damaged one:\n%s", file, stdout)
					}
				}
				_, got, stderr := runNoPanic(t, context.Background(), "export", "--data", dir)
				switch {
				case file == "pages.db" && refused > 0:
					// Rebuilt from the index: the indexed pages and their clusters.
					if g := fetchedIndexed(t, got); !equalMaps(g, wantFetched) {
						t.Errorf("after repairing pages.db the indexed pages differ:\n%v\nwant\n%v\n(check said:\n%s)", g, wantFetched, stdout)
					}
				case got != want:
					t.Errorf("after check, export differs:\n%s\nwant\n%s\n(check said:\n%s%s)", got, want, stdout, stderr)
				}
				if code, _, stderr := runNoPanic(t, context.Background(), "crawl", "--once", "--data", dir); code != 0 {
					t.Errorf("crawl after check: exit %d: %s", code, stderr)
				}
			})
		}
	}
}

// fetchedIndexed maps each indexed URL of an export to its cluster and
// master.
func fetchedIndexed(t *testing.T, export string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range parseExport(t, export) {
		if e.Status == "fetched" && e.Indexed {
			out[e.URL] = e.Cluster + " " + e.Master
		}
	}
	return out
}

func parseExport(t *testing.T, export string) []crawler.Entry {
	t.Helper()
	var out []crawler.Entry
	for _, line := range strings.Split(strings.TrimSpace(export), "\n") {
		var e crawler.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDamagedSets damages the detector's verification sets
// (detector.sets: raw hashes at offsets the snapshot names, which no
// other check reads) in the three ways a check tells apart — deleted
// (missing), cut to half (cut short), garbled in its middle (its
// checksum) — the other damages of TestDamagedStores being the same
// reasons at other offsets. doppel check --dry-run
// names the file and exits 1; doppel check moves it aside with the
// snapshot that reads it, so that the next crawl replays every recorded
// page, and exits 0; export is as before, and the crawl that follows
// leaves a snapshot and sets that check finds sound. A crawl run on the
// damaged directory without check replays every record instead of
// reading the damaged sets, and leaves it sound too.
func TestDamagedSets(t *testing.T) {
	_, base, _ := crawled(t, smallCrawl)
	_, want, _ := doppel(t, "export", "--data", base)
	if info, err := os.Stat(filepath.Join(base, "detector.sets")); err != nil || info.Size() < 1024 {
		t.Fatalf("detector.sets: %v, %v; want the sets of the crawl's pages", info, err)
	}
	sound := func(t *testing.T, dir, when string) {
		t.Helper()
		if code, stdout, stderr := runNoPanic(t, context.Background(), "check", "--data", dir, "--dry-run"); code != 0 {
			t.Errorf("%s: check --dry-run exits %d:\n%s%s", when, code, stdout, stderr)
		}
	}
	for _, dmg := range damages {
		if dmg.name != "deleted" && dmg.name != "half" && dmg.name != "garbled-middle" {
			continue
		}
		t.Run(dmg.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			copyDir(t, base, dir)
			damageFile(t, filepath.Join(dir, "detector.sets"), dmg)
			healed := filepath.Join(t.TempDir(), "data")
			copyDir(t, dir, healed)

			code, stdout, _ := runNoPanic(t, context.Background(), "check", "--data", dir, "--dry-run")
			if code == 0 || !strings.Contains(stdout, "detector.sets damaged") {
				t.Errorf("check --dry-run of a damaged detector.sets: exit %d\n%s; want exit 1 and a line naming it", code, stdout)
			}
			code, stdout, stderr := runNoPanic(t, context.Background(), "check", "--data", dir)
			if code != 0 || !strings.Contains(stdout, "replays every recorded page") {
				t.Fatalf("check of a damaged detector.sets: exit %d\n%s%s; want it repaired", code, stdout, stderr)
			}
			for _, name := range []string{"detector.sets", "detector.snap"} {
				if m, _ := filepath.Glob(filepath.Join(dir, name+".damaged-*")); len(m) != 1 && (name != "detector.sets" || dmg.do != nil) {
					t.Errorf("check kept %d copies of %s aside; want the one it moved:\n%s", len(m), name, stdout)
				}
			}
			if _, got, _ := runNoPanic(t, context.Background(), "export", "--data", dir); got != want {
				t.Errorf("after check, export differs:\n%s\nwant\n%s", got, want)
			}
			for _, d := range []string{dir, healed} {
				if code, _, stderr := runNoPanic(t, context.Background(), "crawl", "--once", "--data", d); code != 0 && code != 3 {
					t.Errorf("crawl: exit %d: %s", code, stderr)
				}
				sound(t, d, "after the crawl")
				if _, got, _ := runNoPanic(t, context.Background(), "export", "--data", d); fetchedIndexed(t, got) == nil || !equalMaps(fetchedIndexed(t, got), fetchedIndexed(t, want)) {
					t.Errorf("after the crawl the indexed pages differ:\n%s\nwant\n%s", got, want)
				}
			}
		})
	}
}

// damageFile does dmg to the file at path.
func damageFile(t *testing.T, path string, dmg damage) {
	t.Helper()
	if dmg.do == nil {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, dmg.do(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
