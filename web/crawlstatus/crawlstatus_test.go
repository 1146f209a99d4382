package crawlstatus

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/doppel-search/doppel/crawler"
)

// fake is a crawl of n hosts; its Hosts fails while broken.
type fake struct {
	n      int
	calls  int // of Hosts
	reads  int // of Health
	broken bool
}

func (f *fake) Hosts(limit int) ([]crawler.HostStats, int, error) {
	f.calls++
	if f.broken {
		return nil, 0, errors.New("frontier unreadable")
	}
	var out []crawler.HostStats
	for i := range min(limit, f.n) {
		out = append(out, crawler.HostStats{Host: fmt.Sprintf("h%d", i), Fetched: int64(f.n - i), Queued: i % 2})
	}
	return out, f.n, nil
}

func (f *fake) Stats() crawler.Stats { return crawler.Stats{Requests: 12, Skipped: 5} }

func (f *fake) Options() crawler.Options { return crawler.Options{MaxPages: 40} }

func (f *fake) Health() crawler.Health {
	f.reads++
	return crawler.Health{Failures: map[string]int64{crawler.ClassDNS: int64(f.reads)}, Families: map[string]string{"w/*.php?action=*&title=*": "stopped"}}
}

func (f *fake) History() []crawler.Sample {
	return []crawler.Sample{{At: time.Unix(1, 0), Fetched: 1}, {At: time.Unix(11, 0), Fetched: 9, Errors: 2, Queued: 4}}
}

func TestLive(t *testing.T) {
	for _, tc := range []struct {
		hosts, listed, more int
	}{{0, 0, 0}, {3, 3, 0}, {MaxHosts, MaxHosts, 0}, {MaxHosts + 17, MaxHosts, 17}} {
		f := &fake{n: tc.hosts}
		cr := Live(f, time.Hour)()
		if len(cr.Hosts) != tc.listed || cr.MoreHosts != tc.more {
			t.Errorf("%d hosts: %d listed and %d more, want %d and %d", tc.hosts, len(cr.Hosts), cr.MoreHosts, tc.listed, tc.more)
		}
		for i, h := range cr.Hosts {
			if h.Host != fmt.Sprintf("h%d", i) || h.Fetched != int64(tc.hosts-i) || (h.Queued > 0) != !h.NextVisit.IsZero() {
				t.Errorf("%d hosts: row %d = %+v", tc.hosts, i, h)
				break
			}
		}
		if len(cr.History) != 2 || cr.History[1].Fetched != 9 || cr.History[1].Errors != 2 || cr.History[1].Queued != 4 || cr.Failures[crawler.ClassDNS] != 1 {
			t.Errorf("%d hosts: history %+v, failures %v", tc.hosts, cr.History, cr.Failures)
		}
		if cr.Requests != 12 || cr.Skipped != 5 || cr.Budget != 40 || cr.Families["w/*.php?action=*&title=*"] != "stopped" {
			t.Errorf("%d hosts: requests %d, skipped %d, budget %d, families %v", tc.hosts, cr.Requests, cr.Skipped, cr.Budget, cr.Families)
		}
	}
}

// TestLiveCaches: the section is read once per ttl; a frontier that
// cannot be read keeps the hosts last read.
func TestLiveCaches(t *testing.T) {
	f := &fake{n: 4}
	live := Live(f, 50*time.Millisecond)
	first := live()
	if live() != first || f.calls != 1 {
		t.Fatalf("read %d times within the ttl", f.calls)
	}
	time.Sleep(60 * time.Millisecond)
	f.broken = true
	again := live()
	if f.calls != 2 || again == first || len(again.Hosts) != 4 || again.Failures[crawler.ClassDNS] != 2 {
		t.Errorf("after the ttl, with the frontier unreadable: %d reads, %d hosts, failures %v", f.calls, len(again.Hosts), again.Failures)
	}
}
