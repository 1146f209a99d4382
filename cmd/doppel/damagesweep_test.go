package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/storetest"
)

var largeSweep = flag.Bool("large", false, "TestDamagedPages: damage every page of every store file, not a sample of each kind")

// A storePage is one region of a store file the sweep damages: for a
// bbolt file one page, its kind read from the page's own header (meta,
// freelist, branch, leaf; "other" for an overflow page, a free page or one
// whose header names another page); for any other file one 4 KiB block.
type storePage struct {
	n    int
	kind string
}

// boltPageSize returns the page size a bbolt file's first meta page
// states, 0 if data is no bbolt file.
func boltPageSize(data []byte) int {
	const magic = 0xED0CDAED
	if len(data) < 32 || binary.LittleEndian.Uint32(data[16:]) != magic {
		return 0
	}
	return int(binary.LittleEndian.Uint32(data[24:]))
}

// storePages lists the regions of a store file of len(data) bytes, pages
// of ps bytes (a bbolt file's, or 4 KiB blocks).
func storePages(data []byte, ps int, bolt bool) []storePage {
	var out []storePage
	for n := 0; n*ps < len(data); n++ {
		kind := "block"
		if bolt {
			kind = "other"
			h := data[n*ps:]
			if len(h) >= 16 && binary.LittleEndian.Uint64(h) == uint64(n) {
				switch binary.LittleEndian.Uint16(h[8:]) {
				case 0x01:
					kind = "branch"
				case 0x02:
					kind = "leaf"
				case 0x04:
					kind = "meta"
				case 0x10:
					kind = "freelist"
				}
			}
		}
		out = append(out, storePage{n, kind})
	}
	return out
}

// A sweepCase is one damage TestDamagedPages does: page p garbled
// whole or past its header ("elements"), and whether doppel check must
// then repair the directory.
type sweepCase struct {
	p        storePage
	elements bool
	repair   bool
}

// sweepCases returns the damages TestDamagedPages does to a file of
// pages: by default both meta pages garbled whole, the free-list page
// whole and past its header, the first branch and leaf page past their
// header (their elements), the first other page whole, and the first and
// last block of a file that is no bbolt file; repaired after the first
// meta page, the free list and the first leaf. With -large, every page
// both ways, repaired after each meta and free-list page and the first
// branch and leaf page.
func sweepCases(pages []storePage) []sweepCase {
	var out []sweepCase
	seen := map[string]int{}
	for i, p := range pages {
		seen[p.kind]++
		first := seen[p.kind] == 1
		if *largeSweep {
			repair := p.kind == "meta" || p.kind == "freelist" || first && (p.kind == "branch" || p.kind == "leaf")
			out = append(out, sweepCase{p, false, repair}, sweepCase{p, true, repair})
			continue
		}
		switch {
		case p.kind == "meta":
			out = append(out, sweepCase{p, false, first})
		case p.kind == "freelist":
			out = append(out, sweepCase{p, false, true}, sweepCase{p, true, false})
		case first && (p.kind == "branch" || p.kind == "leaf"):
			out = append(out, sweepCase{p, true, p.kind == "leaf"})
		case first && p.kind == "other", p.kind == "block" && (first || i == len(pages)-1):
			out = append(out, sweepCase{p, false, false})
		}
	}
	return out
}

// garblePage returns data with bytes [from, to) of page n (of ps bytes)
// garbled.
func garblePage(data []byte, ps, n, from, to int) []byte {
	data = slices.Clone(data)
	start := n * ps
	for i := start + from; i < min(start+to, len(data)); i++ {
		data[i] ^= 0x5A ^ byte(i*7)
	}
	return data
}

// refusedClearly fails the test unless a command's refusal (its stderr)
// is one line naming the store top and saying to run doppel check.
func refusedClearly(t *testing.T, cmd, top, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], top) || !strings.Contains(lines[0], "doppel check") {
		t.Errorf("%s refused with %q; want one line naming %s and \"doppel check\"", cmd, stderr, top)
	}
}

// TestDamagedPages damages a small crawl's store files page by page: the
// pages of its bbolt files (pages.db, frontier.db, the index's root.bolt)
// chosen by kind from the file's own page headers — meta pages, the
// free-list page, the first branch, leaf and other page — and blocks of
// 4 KiB of every other file (the index's segments and metadata, the
// detector's snapshot and sets), garbled whole or past the page's header
// (its elements) as sweepCases lists; with -args -large every page and
// block both ways. For each: export, report and a one-pass crawl do not
// panic, leave no file locked, and either refuse with one line naming the
// store and saying to run doppel check or (damage in bytes no store
// reads) export and report what they did before; a refusal is found by doppel check
// --dry-run; and, after the structural pages, doppel check repairs the
// directory so that export and crawl work and the indexed pages are
// those of before.
func TestDamagedPages(t *testing.T) {
	_, base, _ := crawled(t, smallCrawl)
	_, want, _ := doppel(t, "export", "--data", base)
	_, wantReport, _ := doppel(t, "report", "--data", base)
	wantFetched := fetchedIndexed(t, want)
	if len(wantFetched) < 5 {
		t.Fatalf("the crawl indexed %d pages; want at least 5", len(wantFetched))
	}
	cases := 0
	for _, file := range storeFiles(t, base) {
		if file == "crawl.json" {
			continue // the user's settings: TestDamagedStores
		}
		data, err := os.ReadFile(filepath.Join(base, file))
		if err != nil {
			t.Fatal(err)
		}
		ps, isBolt := boltPageSize(data), true
		if ps == 0 {
			ps, isBolt = 4096, false
		}
		for _, c := range sweepCases(storePages(data, ps, isBolt)) {
			from, part := 0, "whole"
			if c.elements {
				from, part = 16, "elements"
			}
			cases++
			t.Run(fmt.Sprintf("%s/page-%d-%s/%s", file, c.p.n, c.p.kind, part), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "data")
				copyDir(t, base, dir)
				path := filepath.Join(dir, file)
				if err := os.WriteFile(path, garblePage(data, ps, c.p.n, from, ps), 0o644); err != nil {
					t.Fatal(err)
				}
				damagedPage(t, dir, file, want, wantReport, wantFetched, c.repair)
			})
		}
	}
	t.Logf("%d damages", cases)
}

// damagedPage runs export and crawl on the data directory dir whose file
// is damaged and checks what TestDamagedPages says; with repair, doppel
// check too.
func damagedPage(t *testing.T, dir, file, want, wantReport string, wantFetched map[string]string, repair bool) {
	t.Helper()
	top := strings.Split(file, string(filepath.Separator))[0]
	path := filepath.Join(dir, file)
	refused := false
	reports := map[string]string{}
	for _, args := range [][]string{{"export", "--data", dir}, {"report", "--data", dir}, {"crawl", "--once", "--data", dir}} {
		code, stdout, stderr := runNoPanic(t, context.Background(), args...)
		storetest.Unlocked(t, path)
		switch {
		case code == 0 && args[0] == "export" && stdout != want:
			t.Errorf("export of a damaged %s exits 0 with another export:\n%s\nwant\n%s", file, stdout, want)
		case code == 0 || code == 3 && args[0] == "crawl":
			reports[args[0]] = stdout
		default:
			refused = true
			refusedClearly(t, args[0], top, stderr)
		}
	}
	if !refused {
		if _, ok := reports["report"]; ok && reports["report"] != wantReport {
			t.Errorf("report of a damaged %s exits 0 with another report:\n%s\nwant\n%s", file, reports["report"], wantReport)
		}
		return
	}
	if code, stdout, _ := runNoPanic(t, context.Background(), "check", "--data", dir, "--dry-run"); code == 0 {
		t.Errorf("check --dry-run finds nothing wrong with a damaged %s that a command refuses:\n%s", file, stdout)
	}
	storetest.Unlocked(t, path)
	if !repair {
		return
	}
	if code, stdout, stderr := runNoPanic(t, context.Background(), "check", "--data", dir); code != 0 {
		t.Fatalf("check did not repair a damaged %s: exit %d\n%s%s", file, code, stdout, stderr)
	}
	code, got, stderr := runNoPanic(t, context.Background(), "export", "--data", dir)
	if code != 0 {
		t.Fatalf("export after check: exit %d: %s", code, stderr)
	}
	if g := fetchedIndexed(t, got); !equalMaps(g, wantFetched) {
		t.Errorf("after repairing %s the indexed pages differ:\n%v\nwant\n%v", file, g, wantFetched)
	}
	if code, _, stderr := runNoPanic(t, context.Background(), "crawl", "--once", "--data", dir); code != 0 && code != 3 {
		t.Errorf("crawl after check: exit %d: %s", code, stderr)
	}
}
