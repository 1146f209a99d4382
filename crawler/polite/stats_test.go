package polite

import (
	"testing"
	"time"
)

// TestStatsCountWaits: a grant after refusals counts one wait, as long as
// from the first refusal; a grant with no refusal before counts none. A
// grant after the host stood ready (its slot released, its delay past)
// counts the time since as idle.
func TestStatsCountWaits(t *testing.T) {
	type step struct {
		advance time.Duration
		host    string
		release bool // Release instead of TryAcquire
		granted bool
	}
	for _, tc := range []struct {
		name   string
		opts   Options
		steps  []step
		want   Stats
		next   string        // a host whose Next to check at the end
		nextIn time.Duration // Next(next) minus the clock at the end
	}{
		{name: "no contention", opts: Options{Parallelism: 2},
			steps: []step{{0, "a", false, true}, {0, "a", false, true}, {0, "b", false, true}}},
		{name: "busy slot", opts: Options{},
			steps: []step{{0, "a", false, true}, {time.Second, "a", false, false}, {2 * time.Second, "a", false, false},
				{0, "a", true, false}, {time.Second, "a", false, true}},
			want: Stats{Waits: 1, Waited: 3 * time.Second, Idle: time.Second}},
		{name: "delay", opts: Options{Delay: 10 * time.Second},
			steps: []step{{0, "a", false, true}, {0, "a", true, false}, {4 * time.Second, "a", false, false},
				{6 * time.Second, "a", false, true}, {0, "a", true, false}, {10 * time.Second, "a", false, true}},
			want: Stats{Waits: 1, Waited: 6 * time.Second}, next: "a", nextIn: 10 * time.Second},
		{name: "two hosts wait", opts: Options{},
			steps: []step{{0, "a", false, true}, {0, "b", false, true}, {0, "a", false, false}, {time.Second, "b", false, false},
				{0, "a", true, false}, {0, "b", true, false}, {time.Second, "a", false, true}, {0, "b", false, true}},
			want: Stats{Waits: 2, Waited: 3 * time.Second, Idle: 2 * time.Second}},
		{name: "idle after the delay", opts: Options{Delay: time.Second},
			steps: []step{{0, "a", false, true}, {100 * time.Millisecond, "a", true, false}, {1400 * time.Millisecond, "a", false, true},
				{2 * time.Second, "a", true, false}, {0, "a", false, true}},
			want: Stats{Idle: 500 * time.Millisecond}},
		{name: "idle after the release", opts: Options{Delay: time.Second},
			steps: []step{{0, "a", false, true}, {3 * time.Second, "a", true, false}, {250 * time.Millisecond, "a", false, true}},
			want:  Stats{Idle: 250 * time.Millisecond}},
		{name: "unknown host", opts: Options{}, next: "nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{time.Unix(1000, 0)}
			p := newPacer(tc.opts, c)
			for i, s := range tc.steps {
				c.add(s.advance)
				if s.release {
					p.Release(s.host)
					continue
				}
				if got := p.TryAcquire(s.host); got != s.granted {
					t.Fatalf("step %d: TryAcquire(%s) = %v, want %v", i, s.host, got, s.granted)
				}
			}
			if got := p.Stats(); got != tc.want {
				t.Errorf("Stats = %+v, want %+v", got, tc.want)
			}
			if tc.next == "" {
				return
			}
			got := p.Next(tc.next)
			if tc.nextIn == 0 && !got.IsZero() && got.After(c.t) {
				t.Errorf("Next(%s) = %v, want now or zero", tc.next, got)
			}
			if tc.nextIn != 0 && !got.Equal(c.t.Add(tc.nextIn)) {
				t.Errorf("Next(%s) = %v, want %v", tc.next, got, c.t.Add(tc.nextIn))
			}
		})
	}
}
