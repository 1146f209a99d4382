package polite

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGrantLeadsTheTurn: a host's slot is granted up to half its delay
// before its turn, so that the work between a grant and its request
// overlaps the delay, but the request is still sent no sooner than the
// delay after the one before: Send holds it until the turn. Granted only
// at the turn (as before), every request lost that work's time.
func TestGrantLeadsTheTurn(t *testing.T) {
	const delay = 200 * time.Millisecond
	c := &clock{time.Unix(1000, 0)}
	p := newPacer(Options{Delay: delay}, c)
	if !p.TryAcquire("h") {
		t.Fatal("first slot refused")
	}
	if err := p.Send(context.Background(), "h"); err != nil {
		t.Fatal(err)
	}
	sent := c.t
	c.add(10 * time.Millisecond)
	p.Release("h") // the answer is in
	c.add(80 * time.Millisecond)
	if p.TryAcquire("h") {
		t.Fatal("slot granted 110 ms before the turn, more than the lead of half the delay")
	}
	if got, want := p.NextFree(), sent.Add(delay/2); !got.Equal(want) {
		t.Errorf("NextFree = %v, want %v: half the delay before the turn", got, want)
	}
	c.add(30 * time.Millisecond) // 80 ms before the turn
	if !p.TryAcquire("h") {
		t.Fatal("slot refused within the lead: the work before the request cannot overlap the delay")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Send(ctx, "h"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send before the turn = %v, want it held until the turn (the deadline ended it)", err)
	}
	c.add(80 * time.Millisecond) // the turn
	if err := p.Send(context.Background(), "h"); err != nil {
		t.Fatal(err)
	}
	if p.TryAcquire("h") {
		t.Error("a second slot granted while the first is held")
	}
	p.Release("h")

	// A long Crawl-delay: the lead is bounded, a URL is not chosen long before it is fetched.
	p.SetCrawlDelay("slow", 10*time.Second)
	if !p.TryAcquire("slow") {
		t.Fatal("first slot of slow refused")
	}
	if err := p.Send(context.Background(), "slow"); err != nil {
		t.Fatal(err)
	}
	p.Release("slow")
	c.add(10*time.Second - maxLead - time.Millisecond)
	if p.TryAcquire("slow") {
		t.Errorf("slot granted more than %v before a 10 s Crawl-delay's turn", maxLead)
	}
	c.add(time.Millisecond)
	if !p.TryAcquire("slow") {
		t.Errorf("slot refused %v before the Crawl-delay's turn", maxLead)
	}
}
