package dedup

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/testcorpus"
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
