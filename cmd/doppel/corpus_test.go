package main

import (
	"context"
	"maps"
	"os"
	"testing"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/eval"
	"github.com/doppel-search/doppel/internal/jsonl"
	"github.com/doppel-search/doppel/internal/testrig/long"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

// These tests hold Doppel to the acceptance bars on the shared
// corpus, against its exact ground truth. They skip when it is absent.

// corpusRun runs the evaluation of opts on the documents of the corpus
// collection name that keep keeps (all if keep is nil) and returns its
// ground truth, the run, and each document's group.
func corpusRun(t *testing.T, name string, opts dedup.Options, keep func([]jsonl.Record) []jsonl.Record) (*eval.Truth, *evalRun, map[string]string) {
	t.Helper()
	recs := testcorpus.Docs(t, name+".jsonl.gz", 0)
	if keep != nil {
		recs = keep(recs)
	}
	f, err := os.Open(testcorpus.Path(t, name+".pairs.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	truth, err := eval.LoadPairs(f)
	if err != nil {
		t.Fatal(err)
	}
	e := &evaluator{ctx: context.Background(), recs: recs, workers: 2, stderr: testWriter{t}, runs: map[string]*evalRun{}}
	r, err := e.run(evalConfig{name: name, opts: opts})
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]string{}
	for _, rec := range recs {
		groups[rec.ID] = rec.Group
	}
	return truth, r, groups
}

// firstDocs keeps the first 1,500 documents (the corpus files are in path
// order: whole families of revisions); all with DOPPEL_LONG=1.
func firstDocs(recs []jsonl.Record) []jsonl.Record {
	return recs[:min(len(recs), long.N(1500, len(recs)))]
}

// heldPositives returns truth's positives by def at 0.9 among the
// documents of groups (those the run read), failing t if there is none.
func heldPositives(t *testing.T, truth *eval.Truth, def eval.Definition, groups map[string]string) eval.PairSet {
	t.Helper()
	positives := truth.Positives(def, 0.9)
	maps.DeleteFunc(positives, func(p eval.Pair, _ struct{}) bool {
		_, a := groups[p.A]
		_, b := groups[p.B]
		return !a || !b // a pair with a document not read
	})
	if len(positives) == 0 {
		t.Fatal("no positive pair among the documents read")
	}
	return positives
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestRevisionsHybridAccuracy: on book-revisions the default hybrid reaches
// precision and recall >= 0.95 against resemblance >= 0.9, measured on
// every reported pair. The first 1,500 documents (the file is in path
// order: whole families of revisions) and the pairs among them; all
// 5,702 with DOPPEL_LONG=1.
func TestRevisionsHybridAccuracy(t *testing.T) {
	truth, r, groups := corpusRun(t, "book-revisions", dedup.Options{}, firstDocs)
	s := eval.Score(r.pairs, heldPositives(t, truth, eval.Resemblance, groups))
	t.Logf("book-revisions hybrid: %d pairs, precision %.4f, recall %.4f (TP %d FP %d FN %d)", len(r.pairs), s.Precision, s.Recall, s.TP, s.FP, s.FN)
	if s.Precision < 0.95 || s.Recall < 0.95 {
		t.Errorf("precision %.4f, recall %.4f; want both >= 0.95", s.Precision, s.Recall)
	}
}

// TestPerturbProtocol: on book-perturb the hybrid with word-set cosine
// verification and star clustering puts each base and its 10 variants
// together (mean found >= 0.95, <= 1.5 clusters per base) with no false
// positives involving a base group. The whole collection, always: with
// only its bases, their variants and its first 1,500 other documents,
// the cosine pairs' precision falls under its bar (0.9987 < 0.999).
func TestPerturbProtocol(t *testing.T) {
	truth, r, groups := corpusRun(t, "book-perturb", dedup.Options{Similarity: dedup.Cosine}, nil)
	p := eval.MeasureProtocol(r.star, groups, truth)
	t.Logf("book-perturb hybrid cosine, star: found %.3f, %.2f clusters per base, %d false positives (base), %d (all)", p.MeanFound, p.MeanClusters, p.FalsePositives, p.AllFalsePositives)
	if len(p.Groups) != 10 {
		t.Fatalf("%d base groups, want 10", len(p.Groups))
	}
	if p.MeanFound < 0.95 || p.MeanClusters > 1.5 || p.FalsePositives != 0 {
		t.Errorf("found %.3f, clusters %.2f, false positives %d; want >= 0.95, <= 1.5, 0", p.MeanFound, p.MeanClusters, p.FalsePositives)
	}
	// Pair-level precision of the cosine verification is exact.
	if s := eval.Score(r.pairs, heldPositives(t, truth, eval.Cosine, groups)); s.Precision < 0.999 || s.Recall < 0.95 {
		t.Errorf("cosine pairs: precision %.4f recall %.4f", s.Precision, s.Recall)
	}
}
