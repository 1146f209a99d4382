package crawler

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
)

// MaxChanged is the most URLs one change notification (Changed) may name.
const MaxChanged = 1000

// ErrTooManyChanged is Changed's error for a notification of more than
// MaxChanged URLs; nothing of it is applied.
var ErrTooManyChanged = fmt.Errorf("crawler: a change notification names at most %d URLs", MaxChanged)

// A ChangedURL is what Changed did with one URL of a change notification.
type ChangedURL struct {
	URL string `json:"url"` // as given
	// Queued: the URL is due now — fetched in the crawl's next dispatch
	// (a page fetched before, conditionally, as a revisit; a page not
	// yet known, as a new page within the page budget).
	Queued bool `json:"queued"`
	// Reason says why the URL was not queued.
	Reason string `json:"reason,omitempty"`
}

// Changed takes a change notification — URLs a site says it changed, as a
// CMS can send on publishing — and makes each due now in the crawl:
// fetched in its next dispatch, ahead of the schedule (with politeness
// as always), at the priority of a revisit. Only URLs the crawl may
// fetch are taken: in its hosts and prefixes and admitted as a link
// would be (Exclude, robots.txt, traps); every other one gets a reason,
// and so does a URL the crawl recorded as skipped. A page already being
// fetched keeps the revisit its fetch schedules. A crawl that is not
// running (Watch) fetches them when it next runs. It is safe to call
// while the crawl runs, from any goroutine.
func (c *Crawler) Changed(urls []string) ([]ChangedURL, error) {
	if len(urls) > MaxChanged {
		return nil, ErrTooManyChanged
	}
	out := make([]ChangedURL, len(urls))
	var b frontier.Batch
	now := time.Now()
	for i, raw := range urls {
		out[i].URL = raw
		d := c.commit.admit.Link(raw)
		switch {
		case d.URL == "":
			out[i].Reason = "not a URL the crawl can fetch: " + d.Reason
			continue
		case d.Verdict == admit.Ignore:
			out[i].Reason = "outside the crawl's hosts and prefixes"
			continue
		case d.Verdict == admit.Refuse:
			out[i].Reason = "refused by the crawl: " + d.Reason
			continue
		}
		rec, known, err := c.pages.Get(d.URL)
		if err != nil {
			return nil, err
		}
		if known && rec.Status == pages.Skipped {
			out[i].Reason = "recorded as skipped: " + rec.Reason
			continue
		}
		t := task{Revisit: known}
		if known && c.commit.schedule != nil { // a shared crawl's worker may not have the record
			t.Copy = &copyOf{ETag: rec.ETag, Modified: rec.Modified, Hash: rec.Hash}
		}
		payload, _ := json.Marshal(t)
		b.Schedule(d.URL, now, PriorityRevisit, payload)
		out[i].Queued = true
	}
	if b.Len() == 0 {
		return out, nil
	}
	q := c.front
	if c.commit.schedule != nil {
		q = c.commit.schedule
	}
	if _, err := q.Commit(&b); err != nil {
		return nil, fmt.Errorf("crawler: change notification: %w", err)
	}
	if d := c.running.Load(); d != nil {
		d.poke()
	}
	return out, nil
}
