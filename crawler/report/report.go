// Package report computes the duplicates report of a crawl, what an
// intranet's owner asks first: the largest near-duplicate clusters, the
// clusters that join a page and its documents (cross-format twins), the
// series (clusters of dated pages: monthly notices, minutes), the crawl
// budget spent fetching copies and what the index was spared. It reads a
// crawl's records only, through [Source] (a *crawler.View), and the ids
// the search index holds, through [Index]; it writes nothing. Print it
// with [Report.WriteText], [Report.WriteCSV] or [Report.WriteJSON];
// `doppel report` and the status page's duplicates section
// (/status/duplicates) show it.
package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/page/pagedate"
)

// A Source gives a crawl's records: *crawler.View's EachRecord.
type Source interface {
	// EachRecord calls fn for every record in crawl order with, for a
	// fetched page, its cluster and the cluster's current master ("" for
	// other records), and stops at the first error fn returns.
	EachRecord(fn func(r pages.Record, cluster, master string) error) error
}

// An Index gives the ids of the documents a search index holds
// (searchable or hidden): crawler.Store, indexer.Index.
type Index interface {
	EachID(fn func(id string) error) error
}

// Options configures Build. The zero value means the defaults.
type Options struct {
	// Top is how many clusters each list holds (largest clusters,
	// twins, series); the counts cover them all. Default 20.
	Top int
}

// HTML is the format name of a page that is not a document.
const HTML = "html"

// A Report is a crawl's duplicates report. Its JSON is a stable
// contract: `doppel report --format json` prints it.
type Report struct {
	Pages      int `json:"pages"`      // pages fetched
	Clusters   int `json:"clusters"`   // clusters of fetched pages
	Duplicates int `json:"duplicates"` // fetched pages in a cluster another page masters
	// Shared is the number of clusters of more than one page.
	Shared int `json:"shared_clusters"`
	// Largest are the Top largest clusters of more than one page, the
	// largest first (then by master URL).
	Largest []Cluster `json:"largest"`
	// Twins are the Top largest clusters of pages in more than one
	// format (an HTML page and its PDF, a DOCX and its ODT); TwinClusters
	// counts them all.
	Twins        []Cluster `json:"twins"`
	TwinClusters int       `json:"twin_clusters"`
	// Series are the Top largest clusters of pages that name at least two
	// different dates (package page/pagedate: "IT maintenance window,
	// January 2026" … "December 2026"); SeriesClusters counts them all.
	Series         []Cluster `json:"series"`
	SeriesClusters int       `json:"series_clusters"`
	// Contained are the first Top pages (by URL) that are a part of a
	// larger page or document (a chapter of the book that holds it),
	// kept apart by the detector: pages.Record.ContainedIn.
	// ContainedPages counts them all.
	Contained      []Containment `json:"contained"`
	ContainedPages int           `json:"contained_pages"`
	Budget         Budget        `json:"budget"`
	Index          Space         `json:"index"`
}

// A Containment is a page contained in a larger one.
type Containment struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Format  string `json:"format"`
	Cluster string `json:"cluster"`
	In      string `json:"in"`       // URL of the larger page
	InTitle string `json:"in_title"` // its title
}

// A Cluster is one cluster as the report lists it.
type Cluster struct {
	ID     string `json:"id"`
	Master string `json:"master"` // URL of the current master
	Title  string `json:"title"`  // the master's title
	Size   int    `json:"size"`   // fetched pages in the cluster, master included
	// Formats counts the cluster's pages by format ("html", "pdf",
	// "docx", …).
	Formats map[string]int `json:"formats"`
	// Dated is how many of its pages name a date, Oldest and Newest the
	// earliest and latest of those dates, MasterDate the master's (zero
	// and absent from JSON if none).
	Dated      int       `json:"dated"`
	Oldest     time.Time `json:"oldest,omitzero"`
	Newest     time.Time `json:"newest,omitzero"`
	MasterDate time.Time `json:"master_date,omitzero"`
}

// FormatList returns the cluster's formats as "html 1, pdf 1", by name.
func (c Cluster) FormatList() string {
	names := make([]string, 0, len(c.Formats))
	for f := range c.Formats {
		names = append(names, f)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, f := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f + " " + strconv.Itoa(c.Formats[f]))
	}
	return b.String()
}

// A Budget is what the crawl spent fetching copies. Only each page's
// first fetch is counted: revisits are not recorded one by one.
type Budget struct {
	Fetched int `json:"fetched"` // pages fetched
	// Copies is how many of them were near-duplicates of another page
	// (the Duplicates of the report).
	Copies int `json:"copies"`
	// Canonical is how many fetches were skipped because the page named
	// another URL as canonical: copies by the site's own word, fetched
	// before that was known.
	Canonical int `json:"canonical"`
	// Share is (Copies + Canonical) / (Fetched + Canonical), 0 if nothing
	// was fetched.
	Share float64 `json:"share"`
}

// A Space is what the index holds and what it was spared.
type Space struct {
	Documents int `json:"documents"` // documents in the index, searchable or hidden
	// KeptOut is how many fetched pages are not in the index: copies
	// under the index's skip policy, each with a small difference
	// record instead (package indexer).
	KeptOut int `json:"kept_out"`
	// Text is the bytes of indexed text of every fetched page, KeptOutText
	// that of the pages kept out.
	Text        int64 `json:"text_bytes"`
	KeptOutText int64 `json:"kept_out_text_bytes"`
}

// A member is what the report keeps of a fetched page.
type member struct {
	url, title, format string
	date               time.Time
}

// Build reads the crawl's records from src and the index's ids from
// index and returns the report. It fails with the first error either
// returns (a damaged store). Cost: one pass over the records and over the
// index's ids; memory for one small entry per fetched page.
func Build(src Source, index Index, opts Options) (*Report, error) {
	if opts.Top <= 0 {
		opts.Top = 20
	}
	indexed := map[string]bool{}
	if err := index.EachID(func(id string) error { indexed[id] = true; return nil }); err != nil {
		return nil, err
	}
	byCluster := map[string][]member{}
	masters := map[string]string{}
	r := &Report{Largest: []Cluster{}, Twins: []Cluster{}, Series: []Cluster{}, Contained: []Containment{}} // [] in JSON when empty
	titles := map[string]string{}
	err := src.EachRecord(func(rec pages.Record, c, master string) error {
		if rec.Status != pages.Fetched {
			if rec.Status == pages.Skipped && strings.HasPrefix(rec.Reason, "canonical URL is ") {
				r.Budget.Canonical++
			}
			return nil
		}
		r.Pages++
		titles[rec.URL] = rec.Title
		if rec.ContainedIn != "" {
			r.Contained = append(r.Contained, Containment{URL: rec.URL, Title: rec.Title, Format: cmp.Or(rec.Type, HTML), Cluster: c, In: rec.ContainedIn})
		}
		byCluster[c] = append(byCluster[c], member{rec.URL, rec.Title, cmp.Or(rec.Type, HTML), pagedate.Of(rec.Page)})
		masters[c] = master
		if master != rec.URL {
			r.Duplicates++
		}
		r.Index.Text += int64(len(rec.Text))
		if !indexed[rec.URL] {
			r.Index.KeptOut++
			r.Index.KeptOutText += int64(len(rec.Text))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.Clusters = len(byCluster)
	r.Contained = slices.DeleteFunc(r.Contained, func(c Containment) bool {
		_, fetched := titles[c.In]
		return !fetched // the larger page is gone
	})
	for i := range r.Contained {
		r.Contained[i].InTitle = titles[r.Contained[i].In]
	}
	slices.SortFunc(r.Contained, func(a, b Containment) int { return strings.Compare(a.URL, b.URL) })
	r.ContainedPages = len(r.Contained)
	r.Contained = r.Contained[:min(opts.Top, len(r.Contained))]
	r.Index.Documents = len(indexed)
	r.Budget.Fetched, r.Budget.Copies = r.Pages, r.Duplicates
	if n := r.Budget.Fetched + r.Budget.Canonical; n > 0 {
		r.Budget.Share = float64(r.Budget.Copies+r.Budget.Canonical) / float64(n)
	}
	var shared []Cluster
	for id, ms := range byCluster {
		if len(ms) > 1 {
			shared = append(shared, summarize(id, masters[id], ms))
		}
	}
	slices.SortFunc(shared, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), strings.Compare(a.Master, b.Master), strings.Compare(a.ID, b.ID))
	})
	r.Shared = len(shared)
	r.Largest = append(r.Largest, shared[:min(opts.Top, len(shared))]...)
	r.Twins, r.TwinClusters = pick(r.Twins, shared, opts.Top, func(c Cluster) bool { return len(c.Formats) > 1 })
	r.Series, r.SeriesClusters = pick(r.Series, shared, opts.Top, func(c Cluster) bool { return c.Dated >= 2 && !c.Oldest.Equal(c.Newest) })
	return r, nil
}

// summarize returns the cluster id of the members ms, master its
// master's URL.
func summarize(id, master string, ms []member) Cluster {
	c := Cluster{ID: id, Master: master, Size: len(ms), Formats: map[string]int{}}
	for _, m := range ms {
		c.Formats[m.format]++
		if m.url == master {
			c.Title, c.MasterDate = m.title, m.date
		}
		if m.date.IsZero() {
			continue
		}
		c.Dated++
		if c.Oldest.IsZero() || m.date.Before(c.Oldest) {
			c.Oldest = m.date
		}
		if m.date.After(c.Newest) {
			c.Newest = m.date
		}
	}
	return c
}

// pick appends to out the first top clusters of cs that keep says to
// keep, and returns it with how many clusters keep keeps in all.
func pick(out, cs []Cluster, top int, keep func(Cluster) bool) ([]Cluster, int) {
	n := 0
	for _, c := range cs {
		if keep(c) {
			n++
			if len(out) < top {
				out = append(out, c)
			}
		}
	}
	return out, n
}
