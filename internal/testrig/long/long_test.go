package long

import "testing"

// TestN: N follows DOPPEL_LONG, and only its value "1" asks for the full
// number.
func TestN(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"", 3}, {"0", 3}, {"yes", 3}, {"1", 30}} {
		t.Setenv(Env, c.env)
		if got := N(3, 30); got != c.want || Enabled() != (c.want == 30) {
			t.Errorf("DOPPEL_LONG=%q: N(3, 30) = %d, Enabled %v; want %d", c.env, got, Enabled(), c.want)
		}
	}
}
