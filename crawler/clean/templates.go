package clean

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cespare/xxhash/v2"
)

// TemplateOptions configure [Templates]. The zero value is ready to use.
type TemplateOptions struct {
	// MinPages is how many pages of a host must have been observed before
	// any of its blocks is judged template. Default 5.
	MinPages int
	// MaxShare: a block found on more than this share of a host's observed
	// pages is template. Default 0.5.
	MaxShare float64
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *TemplateOptions) EnsureDefaults() *TemplateOptions {
	if o.MinPages <= 0 {
		o.MinPages = 5
	}
	if o.MaxShare <= 0 || o.MaxShare > 1 {
		o.MaxShare = 0.5
	}
	return o
}

// Templates recognises site templates (boilerplate) from collection
// statistics: for each host, and for each section of a host (the first
// segment of the URL path, see [Section]), the number of observed pages
// and, for each block, on how many of them it appears. A section's own
// template — the links every manual page has ("Printer-friendly
// version"), the banner of every print copy — is on most of the
// section's pages but on few of the host's. A block is identified by the
// xxhash of its key: lower-cased, white space collapsed, every decimal
// digit read as 0 and every http(s) URL read as one word, so "© 2024" and
// "Page 3 of 12" lines that differ only by numbers count as one block, as
// do MediaWiki's footers that name each page's own address ("Retrieved
// from "https://wiki/index.php?title=Os&oldid=770"").
//
// Memory is O(distinct blocks per host and per section) — 8-byte hash and
// a counter each.
// The zero value is ready to use with the default options. Templates is
// safe for concurrent use: every method takes a mutex.
type Templates struct {
	opts  TemplateOptions
	mu    sync.Mutex
	hosts map[string]*hostStats
}

// hostStats are the statistics of a host, or of a section of a host
// (keyed host + "/" + section: a host name holds no slash).
type hostStats struct {
	Pages  int            `json:"pages"`
	Blocks map[uint64]int `json:"blocks"` // block key hash → pages containing it
}

// NewTemplates returns empty statistics.
func NewTemplates(opts TemplateOptions) *Templates {
	return &Templates{opts: *opts.EnsureDefaults(), hosts: map[string]*hostStats{}}
}

// urlPattern matches an http or https URL in a block's text.
var urlPattern = regexp.MustCompile(`https?://[^\s"'<>“”]+`)

// blockKey is the hash that identifies a block across pages.
func blockKey(block string) uint64 {
	if strings.Contains(block, "://") {
		block = urlPattern.ReplaceAllLiteralString(block, "url")
	}
	var b strings.Builder
	b.Grow(len(block))
	space := false
	for _, r := range strings.TrimSpace(block) {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsDigit(r):
			r = '0'
		default:
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return xxhash.Sum64String(b.String())
}

// Observe records one page of host: the page count goes up by one, and
// the count of each distinct block on it by one (a block repeated on the
// page counts once). Observe each page once; observing it again counts it
// again. Cost O(total length of blocks).
func (t *Templates) Observe(host string, blocks []string) {
	t.ObservePage(host, "", blocks)
}

// ObservePage is Observe for the page at path (a URL path) of host: it
// counts the page in the host's statistics and in its section's. An
// empty path counts it in the host's only.
func (t *Templates) ObservePage(host, path string, blocks []string) {
	set := distinctKeys(blockKeys(blocks))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.observe(host, set)
	if path != "" {
		t.observe(sectionKey(host, path), set)
	}
}

// ObserveStrip is Observe then Strip in one step, hashing each block once.
func (t *Templates) ObserveStrip(host string, blocks []string) []string {
	return t.ObserveStripPage(host, "", blocks)
}

// ObserveStripPage is ObservePage then StripPage in one step, hashing
// each block once.
func (t *Templates) ObserveStripPage(host, path string, blocks []string) []string {
	keys := blockKeys(blocks)
	set := distinctKeys(keys)
	t.mu.Lock()
	t.observe(host, set)
	if path != "" {
		t.observe(sectionKey(host, path), set)
	}
	out := t.strip(host, path, blocks, keys)
	t.mu.Unlock()
	if len(out) == 0 {
		return append(out, blocks...)
	}
	return out
}

// Section returns the section of a page at path (a URL path): its first
// segment, "manual" for "/manual/vpn.html" and "/manual/"; "" for a page
// at the root ("/", "/about.html"), which are a section too.
func Section(path string) string {
	seg, _, found := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !found {
		return ""
	}
	return seg
}

// sectionKey is the key of the statistics of path's section of host.
func sectionKey(host, path string) string {
	return host + "/" + Section(path)
}

func blockKeys(blocks []string) []uint64 {
	keys := make([]uint64, len(blocks))
	for i, b := range blocks {
		keys[i] = blockKey(b)
	}
	return keys
}

// distinctKeys returns keys without repeats, sorted: a block a page
// holds twice counts once. (Sorting costs O(n log n) for a page of n
// blocks, where looking back for each block cost O(n²): a page of 5,000
// table cells took 12.5 million comparisons, twice.)
func distinctKeys(keys []uint64) []uint64 {
	set := slices.Clone(keys)
	slices.Sort(set)
	return slices.Compact(set)
}

// observe counts a page holding the distinct block keys set; t.mu is
// held.
func (t *Templates) observe(host string, set []uint64) {
	if t.hosts == nil {
		t.hosts = map[string]*hostStats{}
	}
	h := t.hosts[host]
	if h == nil {
		h = &hostStats{Blocks: map[uint64]int{}}
		t.hosts[host] = h
	}
	h.Pages++
	for _, k := range set {
		h.Blocks[k]++
	}
}

// Known reports whether the statistics that judge a page at path of
// host are both known: MinPages pages of the host, and of path's section
// (an empty path: the host's only), have been observed. A page stripped
// before they were kept blocks that are template.
func (t *Templates) Known(host, path string) bool {
	o := t.opts
	o.EnsureDefaults()
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := []string{host}
	if path != "" {
		keys = append(keys, sectionKey(host, path))
	}
	for _, k := range keys {
		if h := t.hosts[k]; h == nil || h.Pages < o.MinPages {
			return false
		}
	}
	return true
}

// Pages returns how many pages of host have been observed.
func (t *Templates) Pages(host string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.hosts[host]; h != nil {
		return h.Pages
	}
	return 0
}

// Strip returns blocks without the template ones: those found on more than
// MaxShare of the host's observed pages. Before MinPages pages of the host
// have been observed, and when every block would go (the page is all
// template, such as the site's home page), it returns a copy of blocks
// unchanged. blocks is not modified. Cost O(total length of blocks).
func (t *Templates) Strip(host string, blocks []string) []string {
	return t.StripPage(host, "", blocks)
}

// StripPage is Strip for the page at path of host: a block is template
// when it is found on more than MaxShare of the host's observed pages, or
// of its section's (once MinPages pages of the section have been
// observed). An empty path judges by the host's statistics only.
func (t *Templates) StripPage(host, path string, blocks []string) []string {
	keys := blockKeys(blocks)
	t.mu.Lock()
	out := t.strip(host, path, blocks, keys)
	t.mu.Unlock()
	if len(out) == 0 {
		return append(out, blocks...)
	}
	return out
}

// strip returns the blocks that are template neither on the host nor in
// path's section (each judged once MinPages of its pages have been
// observed); t.mu is held.
func (t *Templates) strip(host, path string, blocks []string, keys []uint64) []string {
	out := make([]string, 0, len(blocks))
	stats := []*hostStats{t.hosts[host]}
	if path != "" {
		stats = append(stats, t.hosts[sectionKey(host, path)])
	}
	for i, b := range blocks {
		if !t.template(stats, keys[i]) {
			out = append(out, b)
		}
	}
	return out
}

// template reports whether the block key k is on more than MaxShare of
// the pages of any of stats that has MinPages pages.
func (t *Templates) template(stats []*hostStats, k uint64) bool {
	o := t.opts
	o.EnsureDefaults() // the zero Templates
	for _, h := range stats {
		if h != nil && h.Pages >= o.MinPages && float64(h.Blocks[k]) > o.MaxShare*float64(h.Pages) {
			return true
		}
	}
	return false
}

// templatesFormat is the persisted form; Version guards future changes.
type templatesFormat struct {
	Version int                   `json:"version"`
	Hosts   map[string]*hostStats `json:"hosts"`
}

const templatesVersion = 1

// MarshalBinary encodes the statistics (not the options) as JSON. Cost
// O(distinct blocks).
func (t *Templates) MarshalBinary() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data, err := json.Marshal(templatesFormat{Version: templatesVersion, Hosts: t.hosts})
	if err != nil {
		return nil, fmt.Errorf("clean: encoding templates: %w", err)
	}
	return data, nil
}

// UnmarshalBinary replaces the statistics with those encoded by
// [Templates.MarshalBinary]; the options stay. On error t is unchanged.
func (t *Templates) UnmarshalBinary(data []byte) error {
	var f templatesFormat
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("clean: decoding templates: %w", err)
	}
	if f.Version != templatesVersion {
		return fmt.Errorf("clean: decoding templates: unknown version %d", f.Version)
	}
	for host, h := range f.Hosts {
		if h == nil || h.Pages < 0 {
			return fmt.Errorf("clean: decoding templates: bad stats for host %q", host)
		}
		if h.Blocks == nil {
			h.Blocks = map[uint64]int{}
		}
	}
	if f.Hosts == nil {
		f.Hosts = map[string]*hostStats{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hosts = f.Hosts
	return nil
}
