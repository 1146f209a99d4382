package dedup

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/testrig/testcorpus"
)

var sink uint64

// BenchmarkSign measures signing throughput of every method on the shared
// corpus next to a floor that only tokenizes and hashes tokens, in the same
// run: compare their MB/s. Signing is Detector.Prepare (the parallel part
// of detection); the statistics table is built outside the timer.
func BenchmarkSign(b *testing.B) {
	limit := 0
	if testing.Short() {
		limit = 500
	}
	recs := testcorpus.Docs(b, "book-revisions.jsonl.gz", limit)
	docs := make([]Document, len(recs))
	var bytes int64
	for i, r := range recs {
		docs[i] = Document{ID: r.ID, Text: r.Text}
		bytes += int64(len(r.Text))
	}
	report := func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
	}
	b.Run("method=floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				for _, t := range features.Tokens(d.Text) {
					sink ^= features.HashTerm(t)
				}
			}
		}
		report(b)
	})
	for _, m := range Methods() {
		opts := Options{Method: m}
		det, err := New(tableOf(b, opts, docs), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("method="+m.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					if _, err := det.Prepare(d); err != nil {
						b.Fatal(err)
					}
				}
			}
			report(b)
		})
	}
}

// fanoutWorkload returns n documents of one of the shapes that made
// detection quadratic before Options.MaxFanout: "templated" (short pages
// that differ only by numbers, so they share their I-Match signatures:
// numbers are outside the lexicon), "copies" (exact copies of one page) and,
// as a linear reference, "unique" (short pages of random words that share
// nothing).
func fanoutWorkload(workload string, n int) []Document {
	const page = "The printer on the third floor jams when the paper tray is overfilled. " +
		"Open the front cover, pull the green lever, remove the jammed sheet slowly and close the cover again. " +
		"If the display still shows an error, switch the printer off and on, check that the tray holds fewer " +
		"than two hundred sheets and that the paper guides touch the stack, then print a test page from the " +
		"settings menu. Call the help desk on extension 4242 when the problem comes back."
	r := rand.New(rand.NewPCG(1, uint64(n)))
	docs := make([]Document, n)
	for i := range docs {
		docs[i].ID = fmt.Sprint(i)
		switch workload {
		case "templated":
			docs[i].Text = fmt.Sprintf("document number %d about things and more things %d", i, i%7)
		case "copies":
			docs[i].Text = page
		default:
			words := make([]string, 9)
			for j := range words {
				words[j] = vocab[r.IntN(len(vocab))]
			}
			docs[i].Text = strings.Join(words, " ")
		}
	}
	return docs
}

// BenchmarkInsertFanout measures Detector.Insert (signing is done before
// the timer) on the workloads of fanoutWorkload at 5k, 10k and 20k
// documents: with the default MaxFanout docs/s must not fall as docs grows
// (20k documents within 5× the time of 5k), like the unique-pages
// reference. The unbounded search (fanout=unbounded) is measured in the
// same run on 10× smaller inputs, where its quadratic time already shows.
// It reports docs/s and the near-duplicate pairs per document.
func BenchmarkInsertFanout(b *testing.B) {
	sizes := []int{5000, 10000, 20000}
	if testing.Short() {
		sizes = []int{500, 1000, 2000}
	}
	for _, workload := range []string{"templated", "copies", "unique"} {
		for _, fanout := range []int{0, -1} {
			name := "default"
			if fanout < 0 {
				name = "unbounded"
				if workload == "unique" {
					continue
				}
			}
			for _, n := range sizes {
				if fanout < 0 {
					n /= 10
				}
				docs := fanoutWorkload(workload, n)
				opts := Options{MaxFanout: fanout}
				table := tableOf(b, opts, docs)
				signer, err := New(table, opts)
				if err != nil {
					b.Fatal(err)
				}
				prepared := make([]*Prepared, n)
				for i, doc := range docs {
					if prepared[i], err = signer.Prepare(doc); err != nil {
						b.Fatal(err)
					}
				}
				b.Run(fmt.Sprintf("workload=%s/fanout=%s/docs=%d", workload, name, n), func(b *testing.B) {
					b.ReportAllocs()
					var pairs int
					for b.Loop() {
						det, err := New(table, opts)
						if err != nil {
							b.Fatal(err)
						}
						for _, p := range prepared {
							if _, err := det.Insert(p); err != nil {
								b.Fatal(err)
							}
						}
						pairs = det.Stats().Pairs
					}
					b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "docs/s")
					b.ReportMetric(float64(pairs)/float64(n), "pairs/doc")
				})
			}
		}
	}
}

// BenchmarkChurn measures the recrawl operations on a Detector holding
// the documents of fanoutWorkload (signing done before the timer, as for
// BenchmarkInsertFanout): removing a
// document and adding it back (op=remove-add: a member, or, for one call
// in n, the master, which costs an election), removing and adding back the
// master of the largest cluster (op=master, an election over every
// member: O(members) verifications), and replacing a document by a new
// version (op=replace: copies change trivially and stay, templated pages
// change their number and move). It reports operations per second. The
// removal of a member costs little next to the Insert that follows it
// (see BenchmarkInsertFanout: it grows with docs until the fan-out bounds
// are reached); removing the master of n copies costs an election of n
// verifications.
func BenchmarkChurn(b *testing.B) {
	sizes := []int{2000, 8000}
	if testing.Short() {
		sizes = []int{500, 2000}
	}
	for _, workload := range []string{"templated", "copies", "unique"} {
		for _, n := range sizes {
			docs := fanoutWorkload(workload, n)
			opts := Options{}
			table := tableOf(b, opts, docs)
			det, err := New(table, opts)
			if err != nil {
				b.Fatal(err)
			}
			prepared := make([]*Prepared, n)
			for i, doc := range docs {
				if prepared[i], err = det.Prepare(doc); err != nil {
					b.Fatal(err)
				}
			}
			versions := make([][2]*Prepared, n) // the document and a new version
			for i, doc := range docs {
				doc.Text += " again"
				if workload == "templated" {
					doc.Text = fmt.Sprintf("document number %d about things and more things %d", i+n, i%7)
				}
				p, err := det.Prepare(doc)
				if err != nil {
					b.Fatal(err)
				}
				versions[i] = [2]*Prepared{prepared[i], p}
			}
			fill := func(b *testing.B) *Detector {
				det, err := New(table, opts)
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range prepared {
					if _, err := det.Insert(fresh(p)); err != nil {
						b.Fatal(err)
					}
				}
				return det
			}
			for _, op := range []string{"remove-add", "master", "replace"} {
				if op == "master" && workload == "unique" {
					continue
				}
				b.Run(fmt.Sprintf("workload=%s/op=%s/docs=%d", workload, op, n), func(b *testing.B) {
					det := fill(b)
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						k := i % n
						switch op {
						case "remove-add", "master":
							if op == "master" {
								k, _ = strconv.Atoi(det.Assignments()[0].Master)
							}
							if _, err := det.Remove(docs[k].ID); err != nil {
								b.Fatal(err)
							}
							if _, err := det.Insert(fresh(prepared[k])); err != nil {
								b.Fatal(err)
							}
						case "replace":
							if _, err := det.Update(fresh(versions[k][(i/n+1)%2])); err != nil {
								b.Fatal(err)
							}
						}
						i++
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
				})
			}
		}
	}
}

// fresh returns a copy of p that can be inserted once more (the Detector
// keeps and updates the record it inserts; the signatures are shared).
func fresh(p *Prepared) *Prepared {
	rec := *p.rec
	return &Prepared{doc: p.doc, rec: &rec, generation: p.generation}
}
