package gcsettings

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// current returns the collector's percent and soft limit, unchanged.
func current() (int, int64) {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p, debug.SetMemoryLimit(-1)
}

func TestApply(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0, l0 := current()
	tests := []struct {
		name      string
		s         Settings
		percent   int
		limit     int64
		unlimited bool
	}{
		{name: "explicit", s: Settings{Percent: 150, Limit: 300 << 20}, percent: 150, limit: 300 << 20},
		{name: "Go's percent, no limit", s: Settings{Percent: -1, Limit: -1}, percent: 100, unlimited: true},
		{name: "defaults", s: Settings{}, percent: DefaultPercent, limit: int64(float64(machineMemory()) * DefaultLimitShare)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restore := Apply(tt.s)
			p, l := current()
			restore()
			if p != tt.percent {
				t.Errorf("percent %d, want %d", p, tt.percent)
			}
			if want := tt.limit; tt.unlimited || want == 0 {
				want = math.MaxInt64
				if l != want {
					t.Errorf("limit %d, want none", l)
				}
			} else if l != want {
				t.Errorf("limit %d, want %d", l, want)
			}
			if p, l := current(); p != p0 || l != l0 {
				t.Errorf("after restore: percent %d, limit %d; want %d, %d", p, l, p0, l0)
			}
		})
	}
}

// TestEnvironmentWins: GOGC and GOMEMLIMIT set in the environment are
// left as the runtime read them.
func TestEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1GiB")
	p0, l0 := current()
	restore := Apply(Settings{Percent: 400, Limit: 64 << 20})
	defer restore()
	if p, l := current(); p != p0 || l != l0 {
		t.Errorf("percent %d, limit %d; want the environment's %d, %d", p, l, p0, l0)
	}
}

// TestMachineMemory: on Linux the machine's memory is known, and at
// most what /proc/meminfo says.
func TestMachineMemory(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	if m := machineMemory(); m <= 0 {
		t.Errorf("machine memory %d, want > 0", m)
	}
}
