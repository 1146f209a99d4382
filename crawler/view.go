package crawler

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/page/sitename"
)

// A View reads a crawl — its records, clusters and search index — without
// its write side: nothing is replayed and no detector is built, so opening
// one costs milliseconds whatever the size of the crawl. [OpenView] opens a
// data directory read-only, beside other readers (`doppel serve`, `doppel
// export`); [Crawler.View] reads the stores of a crawl that is running in
// the same process (`doppel crawl --serve`). A View is safe for concurrent
// use.
type View struct {
	opts  Options
	pages *pages.Store
	front frontier.Queue
	index Store
	owned bool // opened by OpenView: Close closes the stores
	// foreign: the index was given (OpenViewWith), and is not closed.
	foreign bool
}

// OpenView opens the crawl in dir for reading. It fails while a crawl (in
// another process) has the directory open for writing.
func OpenView(dir string) (*View, error) {
	opts, err := loadOptions(dir)
	if err != nil {
		return nil, err
	}
	v := &View{opts: opts, owned: true}
	for _, name := range []string{pagesFile, frontierFile} {
		if err := missing(dir, name); err != nil {
			return nil, damaged(dir, err)
		}
	}
	if v.pages, err = pages.Open(filepath.Join(dir, pagesFile), pages.Options{ReadOnly: true, Timeout: lockTimeout}); err != nil {
		return nil, inUse(dir, err)
	}
	if v.front, err = frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{ReadOnly: true, LockTimeout: lockTimeout}); err != nil {
		v.pages.Close()
		return nil, inUse(dir, err)
	}
	if v.index, err = openIndexChecked(dir, 0, indexer.Options{Policy: opts.Policy, ReadOnly: true}); err != nil {
		v.pages.Close()
		v.front.Close()
		return nil, inUse(dir, err)
	}
	if err := agree(dir, v.pages, v.index); err != nil {
		v.Close()
		return nil, damaged(dir, err)
	}
	return v, nil
}

// OpenViewWith opens the crawl's records in dir for reading, as
// OpenView does, with index for its search index: shards another process
// serves (shard.Dial), say. Close leaves index open.
func OpenViewWith(dir string, index Store) (*View, error) {
	opts, err := loadOptions(dir)
	if err != nil {
		return nil, err
	}
	v := &View{opts: opts, owned: true, foreign: true, index: index}
	for _, name := range []string{pagesFile, frontierFile} {
		if err := missing(dir, name); err != nil {
			return nil, damaged(dir, err)
		}
	}
	if v.pages, err = pages.Open(filepath.Join(dir, pagesFile), pages.Options{ReadOnly: true, Timeout: lockTimeout}); err != nil {
		return nil, inUse(dir, err)
	}
	if v.front, err = frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{ReadOnly: true, LockTimeout: lockTimeout}); err != nil {
		v.pages.Close()
		return nil, inUse(dir, err)
	}
	return v, nil
}

// View returns a View of the crawl's stores, valid until Close. Closing
// the View does nothing.
func (c *Crawler) View() *View {
	return &View{opts: c.opts, pages: c.pages, front: c.front, index: c.index}
}

// Close closes the stores OpenView opened.
func (v *View) Close() error {
	if !v.owned {
		return nil
	}
	var err error
	if !v.foreign {
		err = v.index.Close()
	}
	return errors.Join(err, v.pages.Close(), v.front.Close())
}

// Options returns the crawl's options.
func (v *View) Options() Options { return v.opts }

// Index returns the crawl's search index (read-only under OpenView) if
// it is one bleve index, else nil; see Store.
func (v *View) Index() *indexer.Index {
	x, _ := v.index.(*indexer.Index)
	return x
}

// Store returns the crawl's search index: one bleve index, or shards of
// one, local or served by other processes.
func (v *View) Store() Store { return v.index }

// An Entry is what the crawl knows about one URL, as `doppel export`
// prints it: a stable contract for audits and tools.
type Entry struct {
	URL string `json:"url"`
	// Status is "fetched", "skipped", "error", "gone" (fetched once, then
	// answered 404 or 410 on a revisit: out of the index) or "queued".
	Status string `json:"status"`
	// Reason says why a URL was skipped or failed.
	Reason string `json:"reason,omitempty"`
	// Cluster is the near-duplicate cluster of a fetched page.
	Cluster string `json:"cluster,omitempty"`
	// Master is the URL of the cluster's master.
	Master string `json:"master,omitempty"`
	// Indexed says whether the page is in the search index.
	Indexed bool `json:"indexed"`
	// FetchedAt is when the URL was fetched or decided; absent for queued
	// URLs.
	FetchedAt *time.Time `json:"fetched_at,omitempty"`
}

// StatusQueued is the Entry status of a URL waiting in the frontier.
const StatusQueued = "queued"

// Entries calls fn for every URL the crawl has seen: the recorded ones in
// crawl order, then the queued ones (pending or in flight) in URL order.
// Cluster and master are the current ones (a later page may have become
// master); Indexed is what the index holds as of its last flush. It stops
// at the first error fn returns. Cost: one pass over the records, one
// search per 10,000 indexed documents.
func (v *View) Entries(fn func(Entry) error) error {
	masters, err := v.pages.Masters()
	if err != nil {
		return err
	}
	indexed := map[string]bool{}
	if err := v.index.EachID(func(id string) error { indexed[id] = true; return nil }); err != nil {
		return err
	}
	err = v.pages.Each(func(r pages.Record) error {
		at := r.FetchedAt
		e := Entry{URL: r.URL, Status: string(r.Status), Reason: r.Reason, FetchedAt: &at}
		if r.Status == pages.Fetched {
			e.Cluster, e.Master = clusterOf(r.URL, r.Cluster, masters)
			e.Indexed = indexed[r.URL]
		}
		return fn(e)
	})
	if err != nil {
		return err
	}
	var queued []string
	err = v.front.All(func(u string, st frontier.State, _ string) error {
		if st == frontier.Pending || st == frontier.InFlight {
			queued = append(queued, u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	known, err := v.pages.Known(queued)
	if err != nil {
		return err
	}
	for i, u := range queued {
		if known[i] {
			continue // recorded just before a crash, done on the next Run
		}
		if err := fn(Entry{URL: u, Status: StatusQueued}); err != nil {
			return err
		}
	}
	return nil
}

// EachRecord calls fn for every record in crawl order with, for a
// fetched page, its cluster and the cluster's current master (as Entries
// gives them; "" for other records), and stops at the first error fn
// returns: what a report on the clusters reads (package crawler/report).
// Cost: one pass over the records.
func (v *View) EachRecord(fn func(r pages.Record, cluster, master string) error) error {
	masters, err := v.pages.Masters()
	if err != nil {
		return err
	}
	return v.pages.Each(func(r pages.Record) error {
		if r.Status != pages.Fetched {
			return fn(r, "", "")
		}
		c, m := clusterOf(r.URL, r.Cluster, masters)
		return fn(r, c, m)
	})
}

// clusterOf returns the cluster and current master of the fetched page at
// url whose record says it is in cluster recorded.
func clusterOf(url, recorded string, masters map[string]string) (string, string) {
	c := recorded
	if c == "" {
		c = string(cluster.IDFor(url))
	}
	m, ok := masters[c]
	if !ok {
		m = url
	}
	return c, m
}

// SiteNames learns the site name that ends the titles of each host's
// fetched pages (package page/sitename), for display. Cost: one pass
// over the records.
func (v *View) SiteNames() (*sitename.Names, error) {
	var l sitename.Learner
	err := v.pages.Each(func(r pages.Record) error {
		if r.Status == pages.Fetched {
			l.Add(r.URL, r.Title)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l.Names(), nil
}

// ContainedIn returns, for a fetched page that is a part of a larger one
// (pages.Record.ContainedIn), the larger one's URL and its cluster; ok
// is false if the page is no known part of another, or the other is no
// longer a fetched page.
func (v *View) ContainedIn(pageURL string) (in, inCluster string, ok bool) {
	r, ok, err := v.pages.Get(pageURL)
	if err != nil || !ok || r.Status != pages.Fetched || r.ContainedIn == "" {
		return "", "", false
	}
	w, ok, err := v.pages.Get(r.ContainedIn)
	if err != nil || !ok || w.Status != pages.Fetched {
		return "", "", false
	}
	inCluster = w.Cluster
	if inCluster == "" {
		inCluster = string(cluster.IDFor(w.URL))
	}
	return w.URL, inCluster, true
}

// Text returns the cleaned main text of a fetched page as indexed (site
// template removed), near-duplicates that were not indexed included.
func (v *View) Text(pageURL string) (string, bool) {
	r, ok, err := v.pages.Get(pageURL)
	if err != nil || !ok || r.Status != pages.Fetched {
		return "", false
	}
	return r.Text, true
}

// FetchedAt returns when a fetched page was last fetched (or found
// unchanged on a revisit); zero if the URL is not a fetched page. The
// result page shows it for a page that carries no date of its own.
func (v *View) FetchedAt(pageURL string) time.Time {
	r, ok, err := v.pages.Get(pageURL)
	if err != nil || !ok || r.Status != pages.Fetched {
		return time.Time{}
	}
	return r.FetchedAt
}

// A Summary is a crawl's totals, for the status page and the end of
// `doppel crawl`.
type Summary struct {
	Fetched    int // pages fetched
	Unique     int // fetched pages that founded a cluster
	Duplicates int // fetched pages that joined a cluster
	Skipped    int // URLs skipped
	Errors     int // URLs that failed
	Gone       int // pages fetched, then found deleted (404, 410) on a revisit
	Queued     int // URLs waiting in the frontier
	Clusters   int // clusters of fetched pages
	Searchable int // documents a result page may show (as of the last flush)
	Indexed    int // documents in the index, searchable or hidden (as of the last flush)
	// ClusterSizes maps a cluster size to the number of clusters of that
	// size.
	ClusterSizes map[int]int
	// Hamming maps a SimHash Hamming distance to the number of
	// near-duplicates at that distance from their master.
	Hamming map[int]int
}

// Summary computes the crawl's totals. Cost: one pass over the records
// and two searches.
func (v *View) Summary() (Summary, error) {
	masters, err := v.pages.Masters()
	if err != nil {
		return Summary{}, err
	}
	s := Summary{ClusterSizes: map[int]int{}, Hamming: map[int]int{}}
	size := map[string]int{}
	type member struct {
		master  string
		simhash uint64
	}
	var members []member
	fp := map[string]uint64{}
	err = v.pages.EachPlacement(func(r pages.Placement) error {
		switch r.Status {
		case pages.Skipped:
			s.Skipped++
		case pages.Failed:
			s.Errors++
		case pages.Gone:
			s.Gone++
		case pages.Fetched:
			s.Fetched++
			c, m := clusterOf(r.URL, r.Cluster, masters)
			if c == string(cluster.IDFor(r.URL)) {
				s.Unique++
			} else {
				s.Duplicates++
			}
			size[c]++
			fp[r.URL] = r.Simhash
			if m != r.URL {
				members = append(members, member{m, r.Simhash})
			}
		}
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	s.Clusters = len(size)
	for _, n := range size {
		s.ClusterSizes[n]++
	}
	for _, m := range members {
		s.Hamming[bits.OnesCount64(m.simhash^fp[m.master])]++
	}
	if fs, err := v.front.Stats(); err == nil {
		s.Queued = fs.Pending
	}
	if s.Searchable, err = v.index.SearchableCount(); err != nil {
		return Summary{}, err
	}
	if s.Indexed, err = v.index.Indexed(); err != nil {
		return Summary{}, err
	}
	return s, nil
}

// loadOptions reads the options an earlier Open saved in dir.
func loadOptions(dir string) (Options, error) {
	if _, err := os.Stat(filepath.Join(dir, optionsFile)); err != nil {
		if lostOptions(dir) {
			return Options{}, fmt.Errorf("crawler: %s is missing (the crawl's options; its records are there): pass the seeds again to replace it", filepath.Join(dir, optionsFile))
		}
		return Options{}, fmt.Errorf("crawler: no earlier crawl in %s", dir)
	}
	return resolveOptions(dir, Options{})
}
