package clean

import (
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// DefaultTemplateTargets is AnchorOptions.Targets when zero.
const DefaultTemplateTargets = 4

// MaxTemplateTargets bounds AnchorOptions.Targets.
const MaxTemplateTargets = 8

// AnchorOptions configure [Anchors]. The zero value is the default.
type AnchorOptions struct {
	// Targets is how many distinct pages one anchor text may name before
	// it is site template: words that a template puts on links to many
	// pages ("Printer-friendly version", "Next", "Edit", "Home" on
	// per-section home links) name none of them. Default
	// DefaultTemplateTargets (4); at most MaxTemplateTargets (8).
	Targets int
}

// Anchors tells anchor texts that name a page from site template: it
// counts, per anchor text (case and spacing aside), the distinct pages
// that links with that text point to. A text pointing to more than
// Options.Targets pages is template, and carries no weight: [Anchors.Keep]
// drops it from the anchor texts a page is indexed with.
//
// Memory: about 100 bytes per distinct anchor text. Anchors is safe for
// concurrent use.
type Anchors struct {
	mu   sync.Mutex
	max  int
	seen map[uint64]*anchorStat
}

// anchorStat is what Anchors knows of one anchor text.
type anchorStat struct {
	targets  [MaxTemplateTargets]uint64 // hashes of the first distinct targets (at most max of them)
	n        int                        // distinct targets seen, up to max+1
	template bool
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *AnchorOptions) EnsureDefaults() *AnchorOptions {
	if o.Targets <= 0 {
		o.Targets = DefaultTemplateTargets
	}
	return o
}

// NewAnchors returns empty anchor statistics.
func NewAnchors(opts AnchorOptions) *Anchors {
	opts.EnsureDefaults()
	return &Anchors{max: min(opts.Targets, MaxTemplateTargets), seen: map[uint64]*anchorStat{}}
}

// anchorKey returns the hash of text with its white space collapsed and
// lowercased (strings.ToLower of strings.Fields joined by spaces), and
// whether that is not empty. It hashes word by word: a block of a page is
// a key too, and one of 5 MB of words made a slice of every word, then
// their join and its lowercase copy (250 MB allocated for a page of a
// million words).
func anchorKey(text string) (uint64, bool) {
	d := xxhash.New()
	empty := true
	for w := range strings.FieldsSeq(text) {
		if !empty {
			_, _ = d.WriteString(" ")
		}
		_, _ = d.WriteString(strings.ToLower(w))
		empty = false
	}
	return d.Sum64(), !empty
}

// Observe counts a link with anchor text text to the page target.
// Cost: O(len(text)).
func (a *Anchors) Observe(text, target string) {
	k, ok := anchorKey(text)
	if !ok {
		return
	}
	t := xxhash.Sum64String(target)
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.seen[k]
	if s == nil {
		s = &anchorStat{}
		a.seen[k] = s
	}
	if s.template {
		return
	}
	for _, h := range s.targets[:s.n] {
		if h == t {
			return
		}
	}
	if s.n == a.max {
		s.template = true
		return
	}
	s.targets[s.n] = t
	s.n++
}

// Template reports whether text is site template: its links point to
// more than Options.Targets distinct pages.
func (a *Anchors) Template(text string) bool {
	k, ok := anchorKey(text)
	if !ok {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.seen[k]
	return s != nil && s.template
}

// StripBlocks returns the blocks of a page's text that are not a template
// anchor text (see [Anchors.Template]): the text of a link the site puts
// on many pages ("Printer-friendly version" in a list of links inside the
// main content) is its own block, found on too few of the host's pages
// for the block statistics of [Templates] to see. When every block would
// go, it returns a copy of blocks unchanged, as [Templates.Strip] does: a
// page's own text, however short, stays. blocks is not modified. Cost
// O(total length of blocks).
func (a *Anchors) StripBlocks(blocks []string) []string {
	out := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if !a.Template(b) {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return append(out, blocks...)
	}
	return out
}

// Keep returns the texts that are not template, in order (a new slice;
// nil if none is kept).
func (a *Anchors) Keep(texts []string) []string {
	var out []string
	for _, t := range texts {
		if !a.Template(t) {
			out = append(out, t)
		}
	}
	return out
}
