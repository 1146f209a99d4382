package eval

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/doppel-search/doppel/dedup/features"
)

// A Doc is a document given to [ComputeTruth].
type Doc struct {
	ID   string // unique and non-empty
	Text string
}

// Errors returned by [ComputeTruth].
var (
	ErrThreshold   = errors.New("eval: similarity threshold not in (0, 1]")
	ErrEmptyID     = errors.New("eval: empty document id")
	ErrDuplicateID = errors.New("eval: duplicate document id")
)

// ComputeTruth returns the exact ground truth of docs: every pair whose
// resemblance or cosine is >= minSim, each with both similarities exact,
// as defined by the shared corpus and package features:
//
//   - resemblance is the Jaccard coefficient of the documents' sets of
//     hashed word 5-shingles ([features.Shingles]; a document with fewer
//     than 5 tokens uses its token set; a document without tokens has
//     resemblance 0 with everything);
//   - cosine is |U_a ∩ U_b| / sqrt(|U_a|·|U_b|) of the sets of
//     [features.CosineWords]; a document with fewer than
//     [features.MinCosineWords] of them takes no part in cosine pairs, and
//     a listed pair involving it has cosine 0.
//
// Nothing is sampled: candidates come from prefix filtering (Chaudhuri et
// al. 2006; Bayardo et al. 2007), which cannot miss a pair. Each set is
// ordered by increasing global frequency of its elements (ties by hash);
// two sets with overlap >= ceil(t·|x|) must share an element of their
// prefixes of |x| − ceil(t·|x|) + 1 elements, where t = minSim for
// resemblance (J >= t implies overlap >= t·max(|x|,|y|)) and t = minSim²
// for cosine (C >= t implies overlap >= t²·max(|x|,|y|)). Candidates are
// also filtered by size (t·|x| <= |y| <= |x|/t for resemblance, with t²
// for cosine) and by position (PPJoin, Xiao et al. 2008: dropped once the
// shared prefix elements plus the elements left cannot reach the overlap
// needed), then verified by exact set intersection. Filters err on the
// side of keeping a candidate by a relative 1e-9, so floating-point
// rounding cannot drop a pair.
//
// The pairs are ordered like the corpus pair files: A comes before B in
// docs, and pairs are sorted by the position of A, then of B. The values
// are bit for bit those of [features.Resemblance] and [features.Cosine] on
// the same sets.
//
// Work is spread over GOMAXPROCS goroutines. progress, if not nil, is
// called each time a document has been compared with all earlier ones,
// with done rising from 1 to total = len(docs); calls never overlap.
//
// Errors: [ErrThreshold] unless 0 < minSim <= 1; [ErrEmptyID] or
// [ErrDuplicateID] for a bad document id.
//
// Cost: O(text) to tokenize and hash, O(E log E) to order the E set
// elements, then the postings scanned plus O(|x|+|y|) per candidate pair.
// Near-linear on typical collections; quadratic in the size of a group of
// documents that all share their rarest elements (which are then mostly
// true pairs). Memory: O(E) plus the output.
func ComputeTruth(docs []Doc, minSim float64, progress func(done, total int)) (*Truth, error) {
	if !(minSim > 0 && minSim <= 1) {
		return nil, fmt.Errorf("%w: %v", ErrThreshold, minSim)
	}
	seen := make(map[string]int, len(docs))
	for i, d := range docs {
		if d.ID == "" {
			return nil, fmt.Errorf("%w (document %d)", ErrEmptyID, i)
		}
		if first, dup := seen[d.ID]; dup {
			return nil, fmt.Errorf("%w: %q (documents %d and %d)", ErrDuplicateID, d.ID, first, i)
		}
		seen[d.ID] = i
	}
	n := len(docs)
	workers := runtime.GOMAXPROCS(0)

	shingles := make([][]uint64, n)
	words := make([][]uint64, n)
	parallel(n, workers, 16, func(_, i int) {
		tokens := features.Tokens(docs[i].Text)
		shingles[i] = features.Set(features.Shingles(tokens, features.DefaultShingleWidth))
		if w := features.CosineWords(tokens); len(w) >= features.MinCosineWords {
			words[i] = w
		}
	})
	sides := [2]*side{
		newSide(shingles, minSim, false, workers),
		newSide(words, minSim, true, workers),
	}

	probers := make([]*prober, workers)
	for w := range probers {
		probers[w] = newProber(n)
	}
	results := make([][]found, n)
	var mu sync.Mutex
	done := 0
	parallel(n, workers, 8, func(w, i int) {
		results[i] = probers[w].probe(int32(i), sides, minSim)
		if progress != nil {
			mu.Lock()
			done++
			progress(done, n)
			mu.Unlock()
		}
	})

	var all []found
	for _, r := range results {
		all = append(all, r...)
	}
	slices.SortFunc(all, func(x, y found) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) })
	t := newTruth(len(all))
	for _, f := range all {
		t.add(LabeledPair{A: docs[f.a].ID, B: docs[f.b].ID, Jaccard: f.sim[0], Cosine: f.sim[1]})
	}
	return t, nil
}

// A side is one similarity measure (resemblance or cosine): every
// document's set as element ranks, and the inverted index of the set
// prefixes.
type side struct {
	sets     [][]int32 // per document, element ranks ascending (rarest first)
	minSim   float64
	cosine   bool      // the measure is the cosine, not the Jaccard coefficient
	frac     float64   // every pair must overlap in frac·max(|x|,|y|): minSim, or minSim² for the cosine
	start    []int32   // postings of rank r: postings[start[r]:start[r+1]]
	postings []posting // ascending by document within each rank
}

// A posting is a document whose prefix holds an element, and the element's
// position in the document's set.
type posting struct {
	doc, pos int32
}

// slack widens the floating-point filters so that rounding never drops a
// pair; it only admits a few more candidates, which are verified exactly.
const slack = 1e-9

// prefixLen returns how many of a set's rarest elements to index when every
// pair must overlap in frac·size elements: size − ceil(frac·size) + 1.
func prefixLen(size int, frac float64) int {
	need := max(int(math.Ceil(frac*float64(size)*(1-slack))), 1)
	return max(size-need+1, 0)
}

// sizeRange returns the sizes y of the sets that can be similar enough to
// a set of size x: min(x,y) >= frac·max(x,y).
func (s *side) sizeRange(x int) (lo, hi int) {
	f := s.frac * (1 - slack)
	return int(math.Ceil(f * float64(x))), int(min(math.Floor(float64(x)/f), math.MaxInt32))
}

// minOverlap returns the least overlap two sets of sizes x and y need to
// reach minSim: o >= minSim·(x+y)/(1+minSim) for the Jaccard coefficient,
// o >= minSim·sqrt(x·y) for the cosine.
func (s *side) minOverlap(x, y int) int32 {
	var v float64
	if s.cosine {
		v = s.minSim * math.Sqrt(float64(x)*float64(y))
	} else {
		v = s.minSim * float64(x+y) / (1 + s.minSim)
	}
	return int32(math.Ceil(v * (1 - slack)))
}

// sim returns the similarity of two sets of sizes x and y that share o
// elements, computed as features.Resemblance and features.Cosine do.
func (s *side) sim(o, x, y int) float64 {
	if s.cosine {
		if x == 0 || y == 0 {
			return 0
		}
		return float64(o) / math.Sqrt(float64(x)*float64(y))
	}
	if x+y-o == 0 {
		return 0
	}
	return float64(o) / float64(x+y-o)
}

// newSide replaces hashes by global frequency ranks (freeing the hash sets)
// and indexes the prefixes.
func newSide(hashes [][]uint64, minSim float64, cosine bool, workers int) *side {
	s := &side{sets: make([][]int32, len(hashes)), minSim: minSim, cosine: cosine, frac: minSim}
	if cosine {
		s.frac = minSim * minSim
	}
	ranks := rankElements(hashes, workers)
	parallel(len(hashes), workers, 64, func(_, i int) {
		if len(hashes[i]) == 0 {
			return
		}
		r := make([]int32, len(hashes[i]))
		for k, e := range hashes[i] {
			r[k] = ranks[e>>(64-shardBits)][e]
		}
		slices.Sort(r)
		s.sets[i] = r
		hashes[i] = nil
	})
	universe := 0
	for _, m := range ranks {
		universe += len(m)
	}
	s.start = make([]int32, universe+1)
	for _, x := range s.sets {
		for _, r := range x[:prefixLen(len(x), s.frac)] {
			s.start[r+1]++
		}
	}
	for r := range universe {
		s.start[r+1] += s.start[r]
	}
	s.postings = make([]posting, s.start[universe])
	fill := slices.Clone(s.start[:universe])
	for i, x := range s.sets {
		for pos, r := range x[:prefixLen(len(x), s.frac)] {
			s.postings[fill[r]] = posting{int32(i), int32(pos)}
			fill[r]++
		}
	}
	return s
}

// Elements are counted in 1<<shardBits shards by their top hash bits, so
// that the work spreads over goroutines and each map stays small.
const shardBits = 6

// rankElements returns, for each shard, the rank of every element of the
// sorted sets hashes in increasing order of document frequency, ties by
// hash: the global order that puts each set's rarest elements first.
func rankElements(hashes [][]uint64, workers int) []map[uint64]int32 {
	const shards = 1 << shardBits
	type elem struct {
		h  uint64
		df int32
	}
	maps := make([]map[uint64]int32, shards) // per shard: frequency, then rank
	elems := make([][]elem, shards)          // per shard, ascending by hash
	parallel(shards, workers, 1, func(_, sh int) {
		lo, hi := uint64(sh)<<(64-shardBits), uint64(sh+1)<<(64-shardBits)
		df := map[uint64]int32{}
		for _, h := range hashes {
			a, _ := slices.BinarySearch(h, lo)
			b := len(h)
			if sh+1 < shards {
				b, _ = slices.BinarySearch(h, hi)
			}
			for _, e := range h[a:b] {
				df[e]++
			}
		}
		es := make([]elem, 0, len(df))
		for h, f := range df {
			es = append(es, elem{h, f})
		}
		slices.SortFunc(es, func(a, b elem) int { return cmp.Compare(a.h, b.h) })
		maps[sh], elems[sh] = df, es
	})
	// Counting sort by frequency; taking shards in order keeps ties by hash.
	var next []int32 // next[f]: the next rank for an element of frequency f
	for _, es := range elems {
		for _, e := range es {
			if int(e.df) >= len(next) {
				next = append(next, make([]int32, int(e.df)+1-len(next))...)
			}
			next[e.df]++
		}
	}
	r := int32(0)
	for f, n := range next {
		next[f] = r
		r += n
	}
	for sh, es := range elems {
		for _, e := range es {
			maps[sh][e.h] = next[e.df]
			next[e.df]++
		}
	}
	return maps
}

// A found pair: document numbers a < b and their similarities on each
// side.
type found struct {
	a, b int32
	sim  [2]float64
}

// prober finds the pairs of one document with the documents before it, one
// per goroutine. Arrays are indexed by side, then by document.
type prober struct {
	stamp []int32 // stamp[k] == i+1 when k is already a candidate of i
	cand  []int32
	state [2][]uint8
	count [2][]int32 // shared prefix elements found so far
	need  [2][]int32 // least overlap for the pair to be listed
	lastX [2][]int32 // position in i's set of the last shared element
	lastY [2][]int32 // position in k's set of the last shared element
}

// Candidate states on a side.
const (
	unseen uint8 = iota
	alive        // may reach the threshold
	pruned       // cannot reach it
)

func newProber(n int) *prober {
	p := &prober{stamp: make([]int32, n)}
	for s := range 2 {
		p.state[s] = make([]uint8, n)
		p.count[s] = make([]int32, n)
		p.need[s] = make([]int32, n)
		p.lastX[s] = make([]int32, n)
		p.lastY[s] = make([]int32, n)
	}
	return p
}

// probe returns the pairs of document i with the documents before it.
func (p *prober) probe(i int32, sides [2]*side, minSim float64) []found {
	p.cand = p.cand[:0]
	for s, sd := range sides {
		p.collect(i, s, sd)
	}
	var out []found
	for _, k := range p.cand {
		f, listed := found{a: k, b: i}, false
		var exact [2]bool
		for s, sd := range sides {
			if p.state[s][k] != alive {
				continue
			}
			x, y := sd.sets[i], sd.sets[k]
			o := int(p.count[s][k]) + features.Intersection(x[p.lastX[s][k]+1:], y[p.lastY[s][k]+1:])
			f.sim[s], exact[s] = sd.sim(o, len(x), len(y)), true
			listed = listed || f.sim[s] >= minSim
		}
		if !listed {
			continue
		}
		for s, sd := range sides {
			if !exact[s] {
				x, y := sd.sets[i], sd.sets[k]
				f.sim[s] = sd.sim(features.Intersection(x, y), len(x), len(y))
			}
		}
		out = append(out, f)
	}
	return out
}

// collect adds to p.cand the documents before i that share a prefix
// element with i on side s and may reach the threshold. It counts the
// shared prefix elements, in rank order, and prunes a candidate as soon as
// the elements left after the current one cannot make up the overlap
// needed (the positional filter of Xiao et al. 2008, PPJoin).
func (p *prober) collect(i int32, s int, sd *side) {
	x := sd.sets[i]
	if len(x) == 0 {
		return
	}
	lo, hi := sd.sizeRange(len(x))
	state, count, need := p.state[s], p.count[s], p.need[s]
	for px, r := range x[:prefixLen(len(x), sd.frac)] {
		for _, e := range sd.postings[sd.start[r]:sd.start[r+1]] {
			k := e.doc
			if k >= i {
				break
			}
			if p.stamp[k] != i+1 {
				p.stamp[k] = i + 1
				p.cand = append(p.cand, k)
				for t := range p.state {
					p.state[t][k] = unseen
				}
			}
			switch state[k] {
			case pruned:
				continue
			case unseen:
				y := len(sd.sets[k])
				if y < lo || y > hi {
					state[k] = pruned
					continue
				}
				state[k], count[k], need[k] = alive, 0, sd.minOverlap(len(x), y)
			}
			count[k]++
			rest := min(len(x)-px-1, len(sd.sets[k])-int(e.pos)-1)
			if count[k]+int32(rest) < need[k] {
				state[k] = pruned
				continue
			}
			p.lastX[s][k], p.lastY[s][k] = int32(px), e.pos
		}
	}
}

// parallel calls f(w, i) for every i in [0, n) on the given number of
// goroutines, handing out indices in batches; w in [0, workers) names the
// goroutine, so f can keep per-goroutine state.
func parallel(n, workers, batch int, f func(w, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(batch))) - batch
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+batch, n); i++ {
					f(w, i)
				}
			}
		})
	}
	wg.Wait()
}
