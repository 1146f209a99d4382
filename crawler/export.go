package crawler

import (
	"math/bits"
	"time"

	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup/cluster"
)

// An Entry is what the crawl knows about one URL, as `doppel export`
// prints it: a stable contract for audits and tools.
type Entry struct {
	URL string `json:"url"`
	// Status is "fetched", "skipped", "error" or "queued".
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
// master). It stops at the first error fn returns.
func (c *Crawler) Entries(fn func(Entry) error) error {
	c.mu.Lock()
	assigned := map[string][2]string{}
	for _, a := range c.hook.Detector().Assignments() {
		assigned[a.ID] = [2]string{string(a.Cluster), a.Master}
	}
	c.mu.Unlock()
	err := c.pages.Each(func(r pages.Record) error {
		at := r.FetchedAt
		e := Entry{URL: r.URL, Status: string(r.Status), Reason: r.Reason, FetchedAt: &at}
		if r.Status == pages.Fetched {
			a, ok := assigned[r.URL]
			if !ok { // NoDedup: its own cluster
				a = [2]string{string(cluster.IDFor(r.URL)), r.URL}
			}
			e.Cluster, e.Master = a[0], a[1]
			d, err := c.index.Document(r.URL)
			if err != nil {
				return err
			}
			e.Indexed = d != nil
		}
		return fn(e)
	})
	if err != nil {
		return err
	}
	var queued []string
	err = c.front.All(func(u string, st frontier.State, _ string) error {
		if st == frontier.Pending || st == frontier.InFlight {
			queued = append(queued, u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, u := range queued {
		if _, recorded, err := c.pages.Get(u); err != nil || recorded {
			if err != nil {
				return err
			}
			continue // recorded just before a crash, done on the next Run
		}
		if err := fn(Entry{URL: u, Status: StatusQueued}); err != nil {
			return err
		}
	}
	return nil
}

// Text returns the cleaned main text of a fetched page (what dedup
// compared), near-duplicates that were not indexed included.
func (c *Crawler) Text(pageURL string) (string, bool) {
	r, ok, err := c.pages.Get(pageURL)
	if err != nil || !ok || r.Status != pages.Fetched {
		return "", false
	}
	return r.Text, true
}

// Distributions returns the crawl's cluster-size distribution (size →
// clusters) and the SimHash Hamming distance of each near-duplicate to its
// master (distance → pages).
func (c *Crawler) Distributions() (sizes, hamming map[int]int, err error) {
	c.mu.Lock()
	clusters := c.hook.Detector().Clusters()
	c.mu.Unlock()
	sizes, hamming = map[int]int{}, map[int]int{}
	for _, cl := range clusters {
		sizes[len(cl.Members)]++
	}
	fp := map[string]uint64{}
	err = c.pages.Each(func(r pages.Record) error {
		if r.Status == pages.Fetched {
			fp[r.URL] = r.Simhash
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, cl := range clusters {
		for _, m := range cl.Members {
			if m.ID != cl.Master.ID {
				hamming[bits.OnesCount64(fp[m.ID]^fp[cl.Master.ID])]++
			}
		}
	}
	return sizes, hamming, nil
}
