package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestStarHandmade(t *testing.T) {
	// 0-1, 1-2, 1-3, 4 alone: 1 has the most neighbours and becomes master.
	adj := [][]int32{{1}, {0, 2, 3}, {1}, {1}, nil}
	got := Star(5, adj, nil)
	if want := []int{1, 1, 1, 1, 4}; !slices.Equal(got, want) {
		t.Errorf("Star = %v, want %v", got, want)
	}
	// A tie between 0 and 1 (one neighbour each) goes to the earlier one,
	// unless better prefers the later.
	pair := [][]int32{{1}, {0}}
	if got := Star(2, pair, nil); !slices.Equal(got, []int{0, 0}) {
		t.Errorf("tie: %v, want [0 0]", got)
	}
	if got := Star(2, pair, func(a, b int) bool { return a > b }); !slices.Equal(got, []int{1, 1}) {
		t.Errorf("tie with better: %v, want [1 1]", got)
	}
}

// TestStarProperties checks the star invariants on random graphs: every
// document is its own master or a neighbour of its master, masters are
// pairwise non-adjacent, and every document adjacent to no master is one.
func TestStarProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(40)
		adj := make([][]int32, n)
		edge := map[[2]int]bool{}
		for range r.IntN(3 * n) {
			a, b := r.IntN(n), r.IntN(n)
			if a == b || edge[[2]int{a, b}] {
				continue
			}
			edge[[2]int{a, b}], edge[[2]int{b, a}] = true, true
			adj[a] = append(adj[a], int32(b))
			adj[b] = append(adj[b], int32(a))
		}
		m := Star(n, adj, nil)
		for i := range n {
			c := m[i]
			if c != i && !edge[[2]int{i, c}] {
				t.Fatalf("trial %d: %d assigned to non-neighbour master %d", trial, i, c)
			}
			if m[c] != c {
				t.Fatalf("trial %d: master %d of %d is not its own master", trial, c, i)
			}
			if c == i {
				for _, j := range adj[i] {
					if m[j] == int(j) {
						t.Fatalf("trial %d: masters %d and %d are adjacent", trial, i, j)
					}
				}
			}
		}
	}
}
