package main

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/go-dedup/simhash/sho"
	mfonda "github.com/mfonda/simhash"
)

// simhashOptions configures the simhash-bktree pipeline.
type simhashOptions struct {
	K        int    // largest Hamming distance of a pair (3)
	Features string // "words" (the library's word features) or "shingles"
	Width    int    // word shingle width for "shingles" (5)
	Workers  int    // goroutines signing
}

// runSimhashBKTree is the pipeline a user of these libraries writes:
// fingerprint every document with mfonda/simhash, then, in corpus order,
// ask a go-dedup/simhash/sho BK-tree for the fingerprints seen within
// Hamming distance K and insert the document's own. The tree stores
// fingerprints, not documents, and its Search leaves out distance 0 and
// answers distances below its radius, so the pipeline keeps the documents
// of each fingerprint in a map, takes exact matches from the map and asks
// the tree with radius K+1. Every pair within K is reported with score
// 1 − d/64 (sho's similarity). Documents without a token are not signed.
// Signing runs on o.Workers goroutines; the tree is one goroutine's. It
// returns the fingerprints (those of unsigned documents are ^0).
func runSimhashBKTree(docs []doc, o simhashOptions, out *pairList, rep *report) ([]uint64, error) {
	rep.Library = "github.com/mfonda/simhash + github.com/go-dedup/simhash/sho"
	var sign func(tok *tokenizer, text string) (uint64, bool)
	switch o.Features {
	case "words":
		// The library's own features: lowercased matches of [\w']+ (plus
		// URLs), each of weight 1.
		sign = func(tok *tokenizer, text string) (uint64, bool) {
			if tok.reset(text); tok.n() == 0 {
				return 0, false
			}
			return mfonda.Simhash(mfonda.NewWordFeatureSet([]byte(text))), true
		}
	case "shingles":
		sign = func(tok *tokenizer, text string) (uint64, bool) {
			if tok.reset(text); tok.n() == 0 {
				return 0, false
			}
			return mfonda.SimhashBytes(mfonda.Shingle(o.Width, tok.tokens())), true
		}
	default:
		return nil, fmt.Errorf("unknown -features %q (want words or shingles)", o.Features)
	}
	if o.K < 0 || o.K > 63 || o.Width < 1 {
		return nil, fmt.Errorf("bad simhash options %+v", o)
	}
	t := time.Now()
	fps := make([]uint64, len(docs))
	signed := make([]bool, len(docs))
	parallel(len(docs), o.Workers, func() (func(int), func()) {
		var tok tokenizer
		return func(i int) { fps[i], signed[i] = sign(&tok, docs[i].Text) }, nil
	})
	rep.Phases["sign"] = time.Since(t).Seconds()

	t = time.Now()
	tree := sho.NewOracle() // its root is fingerprint 0, not a document's
	byFP := map[uint64][]int{}
	for i, fp := range fps {
		if !signed[i] {
			rep.Unsigned++
			fps[i] = ^uint64(0)
			continue
		}
		for _, j := range byFP[fp] {
			out.add(pair{j, i, 1})
		}
		for _, n := range tree.Search(fp, uint8(o.K+1)) {
			for _, j := range byFP[n.H] {
				out.add(pair{j, i, 1 - float64(n.D)/64})
			}
		}
		if _, seen := byFP[fp]; !seen {
			tree.See(fp)
		}
		byFP[fp] = append(byFP[fp], i)
	}
	rep.Phases["lookup"] = time.Since(t).Seconds()
	rep.Params = map[string]any{"k": o.K, "features": o.Features, "fingerprints": len(byFP)}
	if o.Features == "shingles" {
		rep.Params["shingle"] = o.Width
	}
	return fps, nil
}

// scoreSimhash scores the pairs of the simhash-bktree pipeline against
// the truth pairs without them: the pipeline reports exactly the pairs
// of signed documents whose fingerprints are within Hamming distance k
// (TestSimhashBKTree checks it against a linear scan), so a truth pair is
// found if and only if its fingerprints are. found is the number of pairs
// the pipeline reported.
func scoreSimhash(truth [][2]int, fps []uint64, k, found int) *truthScore {
	s := &truthScore{TruthPairs: len(truth), Predicted: found}
	for _, p := range truth {
		a, b := fps[p[0]], fps[p[1]]
		if a != ^uint64(0) && b != ^uint64(0) && bits.OnesCount64(a^b) <= k {
			s.TP++
		}
	}
	s.fill()
	return s
}
