package clean

import (
	"regexp"
	"strings"
	"sync"
)

// Chrome remembers, for each host, the text blocks its pages show outside
// their main content ([Page.Chrome]: header, sidebar, breadcrumbs,
// footer) so that a document made from a whole page file — a "save as
// Word" of the page, LibreOffice's PDF of the HTML, pandoc's DOCX — can
// be read without them: its twin, the page, is compared by its main
// content alone. A block is known by the key [Templates] uses
// (lower-cased, white space collapsed, digits read as 0, URLs as one
// word).
//
// [Chrome.Strip] takes out of a document only runs of such blocks that
// are template by their place: a run at the document's beginning or end,
// or a run of at least MinRun blocks anywhere (a sidebar of links). A
// heading or a line of the document's own text that a page's sidebar
// happens to name (a table of contents lists the pages' titles) stands
// alone between the document's paragraphs and stays.
//
// A block the host's pages hide in print ([Page.PrintHidden],
// [Chrome.ObservePrintHidden]: Node.js's "Added in: v0.9.3" lines and
// history tables) is furniture by the site's own word, and Strip takes
// it out wherever it stands.
//
// Strip also cuts out runs of at least MinRunWords words that the host's
// chrome holds in that order, across the document's blocks: a PDF that
// joins a page's footer to other paragraphs (see [MinRunWords]).
//
// Memory: at most MaxBlocks keys (8 bytes and a map entry each) a host,
// and as many word shingles; beyond that, new blocks of the host are not
// remembered. Chrome is safe
// for concurrent use; the zero value is ready to use, and a nil *Chrome
// knows no blocks.
type Chrome struct {
	mu     sync.Mutex
	hosts  map[string]map[uint64]struct{}
	hidden map[string]map[uint64]struct{} // blocks hidden in print, by host
	runs   map[string]map[uint64]struct{} // word shingles of the chrome, by host (see stripRuns)
}

// MinRun is the fewest consecutive chrome blocks inside a document that
// Strip takes out (runs at its beginning or end go whatever their
// length).
const MinRun = 3

// MaxBlocks bounds the chrome blocks remembered for one host.
const MaxBlocks = 1 << 16

// Observe remembers the chrome blocks of one page of host, and the
// sequences of their words (see [Chrome]).
func (c *Chrome) Observe(host string, blocks []string) {
	if c == nil || len(blocks) == 0 {
		return
	}
	c.remember(&c.hosts, host, blocks)
	c.rememberKeys(&c.runs, host, wordShingles(chromeWords(blocks)))
}

// ObservePrintHidden remembers the blocks one page of host hides in
// print (Page.PrintHidden).
func (c *Chrome) ObservePrintHidden(host string, blocks []string) {
	if c == nil || len(blocks) == 0 {
		return
	}
	c.remember(&c.hidden, host, blocks)
}

// remember adds the keys of blocks to host's set in *m.
func (c *Chrome) remember(m *map[string]map[uint64]struct{}, host string, blocks []string) {
	c.rememberKeys(m, host, chromeKeys(blocks))
}

// rememberKeys adds keys to host's set in *m, up to MaxBlocks of them.
func (c *Chrome) rememberKeys(m *map[string]map[uint64]struct{}, host string, keys []uint64) {
	if len(keys) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = map[string]map[uint64]struct{}{}
	}
	known := (*m)[host]
	if known == nil {
		known = map[uint64]struct{}{}
		(*m)[host] = known
	}
	for _, k := range keys {
		if len(known) >= MaxBlocks {
			return
		}
		known[k] = struct{}{}
	}
}

// Strip returns the blocks of a document of host without the runs of
// words its chrome holds in that order (see [MinRunWords]), then without
// the runs of blocks the host's pages show as chrome (see [Chrome]);
// blocks itself when there are none, or when every block (every word) is
// one (a document that is all template keeps its text).
func (c *Chrome) Strip(host string, blocks []string) []string {
	if c == nil || len(blocks) == 0 {
		return blocks
	}
	return c.stripBlocks(host, c.stripRuns(host, blocks))
}

// stripBlocks is Strip by whole blocks: the runs of chrome blocks and
// the blocks hidden in print.
func (c *Chrome) stripBlocks(host string, blocks []string) []string {
	keys := chromeKeys(blocks)
	c.mu.Lock()
	known, hidden := c.hosts[host], c.hidden[host]
	is := make([]bool, len(keys))
	drop := make([]bool, len(blocks))
	dropped := 0
	for i, k := range keys {
		_, is[i] = known[k]
		if _, ok := hidden[k]; ok {
			drop[i] = true
			dropped++
		}
	}
	c.mu.Unlock()
	for i := 0; i < len(is); {
		if !is[i] {
			i++
			continue
		}
		j := i
		for j < len(is) && is[j] {
			j++
		}
		if i == 0 || j == len(is) || j-i >= MinRun {
			for k := i; k < j; k++ {
				if !drop[k] {
					drop[k] = true
					dropped++
				}
			}
		}
		i = j
	}
	if dropped == 0 || dropped == len(blocks) {
		return blocks
	}
	kept := make([]string, 0, len(blocks)-dropped)
	for i, b := range blocks {
		if !drop[i] {
			kept = append(kept, b)
		}
	}
	return kept
}

// chromeKeys returns the keys of blocks, each without a leading list
// bullet or outline number (numberPrefix).
func chromeKeys(blocks []string) []uint64 {
	keys := make([]uint64, len(blocks))
	for i, b := range blocks {
		keys[i] = blockKey(numberPrefix.ReplaceAllString(strings.TrimLeft(b, bullets), ""))
	}
	return keys
}

// numberPrefix is an outline number before an item's text ("1. ",
// "3.2. ", "12) "): a document keeps the numbers of a book's table of
// contents where its page hides them from screen readers (mdBook's
// `<strong aria-hidden="true">3.2.</strong>`, which the cleaner drops).
var numberPrefix = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*[.)]?\s+`)

// bullets are the list markers a PDF or a DOCX prints before an item,
// and the spaces after them.
const bullets = "•◦▪▫‣⁃·●○■□–-* \t\u00a0"
