package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	minhash "github.com/dgryski/go-minhash"
	minhashlsh "github.com/ekzhu/minhash-lsh"
)

// minhashOptions configures the minhash-lsh pipeline.
type minhashOptions struct {
	Perm         int     // MinHash values a signature (128)
	Width        int     // word shingle width (5)
	Threshold    float64 // estimated Jaccard at which a candidate is accepted (0.9)
	LSHThreshold float64 // the threshold the index chooses its bands for (0: Threshold)
	Hash         string  // "dgryski" (go-minhash MinWise) or "ekzhu" (minhash-lsh Minhash)
	Workers      int     // goroutines signing and querying
}

// FNV-1a offset bases of the two hash functions h1, h2 that MinWise
// combines (h1 + i·h2): the standard basis and another.
const (
	basis1 = 14695981039346656037
	basis2 = 0x9e3779b97f4a7c15
)

// minhashSeed is the seed of ekzhu/minhash-lsh's Minhash (its all-pairs
// command's default).
const minhashSeed = 42

// runMinhashLSH is the pipeline a user of these libraries writes for
// batch deduplication (ekzhu/minhash-lsh's index is built once: Add every
// signature, Index, then Query): sign every document (MinHash of its word
// shingles), index the signatures (the library chooses its bands k × l
// for o.LSHThreshold), query each document's signature and accept a
// candidate when the fraction of equal MinHash values (the libraries'
// Jaccard estimate) reaches o.Threshold. Documents without a
// token are not signed. Signing and querying run on o.Workers goroutines.
func runMinhashLSH(docs []doc, o minhashOptions, out *pairList, rep *report) error {
	var sign func(tok *tokenizer, text string) []uint64
	switch o.Hash {
	case "dgryski":
		rep.Library = "github.com/dgryski/go-minhash MinWise + github.com/ekzhu/minhash-lsh"
		h1 := func(b []byte) uint64 { return mix64(fnv1a(b, basis1)) }
		h2 := func(b []byte) uint64 { return mix64(fnv1a(b, basis2)) }
		sign = func(tok *tokenizer, text string) []uint64 {
			if tok.reset(text); tok.n() == 0 {
				return nil
			}
			m := minhash.NewMinWise(h1, h2, o.Perm)
			tok.eachShingle(o.Width, m.Push)
			return m.Signature()
		}
	case "ekzhu":
		rep.Library = "github.com/ekzhu/minhash-lsh Minhash + MinhashLSH"
		sign = func(tok *tokenizer, text string) []uint64 {
			if tok.reset(text); tok.n() == 0 {
				return nil
			}
			m := minhashlsh.NewMinhash(minhashSeed, o.Perm)
			tok.eachShingle(o.Width, m.Push)
			return m.Signature()
		}
	default:
		return fmt.Errorf("unknown -minhash %q (want dgryski or ekzhu)", o.Hash)
	}
	if o.LSHThreshold == 0 {
		o.LSHThreshold = o.Threshold
	}
	if o.Threshold <= 0 || o.Threshold > 1 || o.LSHThreshold <= 0 || o.LSHThreshold > 1 || o.Perm < 1 || o.Width < 1 {
		return fmt.Errorf("bad minhash options %+v", o)
	}
	t := time.Now()
	sigs := make([][]uint64, len(docs))
	parallel(len(docs), o.Workers, func() (func(int), func()) {
		var tok tokenizer
		return func(i int) { sigs[i] = sign(&tok, docs[i].Text) }, nil
	})
	rep.Phases["sign"] = time.Since(t).Seconds()

	t = time.Now()
	lsh := minhashlsh.NewMinhashLSH64(o.Perm, o.LSHThreshold)
	for i, s := range sigs {
		if s != nil {
			lsh.Add(i, s)
		} else {
			rep.Unsigned++
		}
	}
	lsh.Index()
	rep.Phases["index"] = time.Since(t).Seconds()
	k, l := lsh.Params()

	t = time.Now()
	var mu sync.Mutex
	var candidates atomic.Int64
	need := o.Threshold * float64(o.Perm)
	parallel(len(docs), o.Workers, func() (func(int), func()) {
		var mine []pair
		query := func(i int) {
			if sigs[i] == nil {
				return
			}
			cands := lsh.Query(sigs[i])
			candidates.Add(int64(len(cands)))
			for _, c := range cands {
				j := c.(int)
				if j <= i {
					continue // itself, or the pair is found from j
				}
				if eq := equalValues(sigs[i], sigs[j]); float64(eq) >= need {
					mine = append(mine, pair{i, j, float64(eq) / float64(o.Perm)})
				}
			}
		}
		done := func() {
			mu.Lock()
			for _, p := range mine {
				out.add(p)
			}
			mu.Unlock()
		}
		return query, done
	})
	rep.Phases["query"] = time.Since(t).Seconds()
	rep.Params = map[string]any{"perm": o.Perm, "shingle": o.Width, "threshold": o.Threshold,
		"lsh_threshold": o.LSHThreshold, "minhash": o.Hash, "lsh_k": k, "lsh_l": l, "candidates": candidates.Load()}
	return nil
}

// equalValues returns the number of positions where a and b agree.
func equalValues(a, b []uint64) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// parallel calls, on each of workers goroutines, newWorker once, then the
// first function it returns with indexes in [0, n) (each index once over
// all goroutines, in chunks of 64), and finally the second, if not nil.
func parallel(n, workers int, newWorker func() (each func(int), done func())) {
	const chunk = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			each, done := newWorker()
			for {
				s := int(next.Add(chunk)) - chunk
				if s >= n {
					break
				}
				for i := s; i < min(s+chunk, n); i++ {
					each(i)
				}
			}
			if done != nil {
				done()
			}
		}()
	}
	wg.Wait()
}
