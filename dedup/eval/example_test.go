package eval_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/doppel-search/doppel/dedup/eval"
)

func ExampleComputeTruth() {
	docs := []eval.Doc{
		{ID: "a", Text: "The quick brown fox jumps over the lazy dog near the river bank."},
		{ID: "b", Text: "The quick brown fox jumps over the lazy dog near the river bank!"},
		{ID: "c", Text: "The quick brown fox leaps over the lazy dog near the river bank."},
		{ID: "d", Text: "Something else entirely, about borrowing and lifetimes."},
	}
	// "leaps" changes 5 of the 9 shingles of c and 1 of its 8 cosine words.
	truth, err := eval.ComputeTruth(docs, 0.5, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range truth.Pairs() {
		fmt.Printf("%s %s jaccard=%.3f cosine=%.3f\n", p.A, p.B, p.Jaccard, p.Cosine)
	}
	// Output:
	// a b jaccard=1.000 cosine=1.000
	// a c jaccard=0.286 cosine=0.875
	// b c jaccard=0.286 cosine=0.875
}

func ExampleLoadPairs() {
	const file = `{"a": "d1", "b": "d2", "jaccard": 0.95, "cosine": 0.97}
{"a": "d1", "b": "d3", "jaccard": 0.52, "cosine": 0.91}
{"a": "d3", "b": "d4", "jaccard": 0.84, "cosine": 0.86}
`
	truth, err := eval.LoadPairs(strings.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	for _, def := range []eval.Definition{eval.Resemblance, eval.Cosine, eval.Either} {
		fmt.Println(def, truth.Positives(def, 0.9).Sorted())
	}
	// Output:
	// resemblance [{d1 d2}]
	// cosine [{d1 d2} {d1 d3}]
	// either [{d1 d2} {d1 d3}]
}

func ExampleScore() {
	truth, _ := eval.NewTruth([]eval.LabeledPair{
		{A: "d1", B: "d2", Jaccard: 0.95, Cosine: 0.97},
		{A: "d1", B: "d3", Jaccard: 0.52, Cosine: 0.91},
		{A: "d3", B: "d4", Jaccard: 0.84, Cosine: 0.86},
	})
	// A clustering that put d1, d2 and d3 together, d4 alone.
	predicted := eval.ClusterPairs(map[string]string{"d1": "c1", "d2": "c1", "d3": "c1", "d4": "c2"})
	s := eval.Score(predicted, truth.Positives(eval.Cosine, 0.9))
	fmt.Printf("TP=%d FP=%d FN=%d precision=%.3f recall=%.3f F1=%.3f\n", s.TP, s.FP, s.FN, s.Precision, s.Recall, s.F1)
	// Output:
	// TP=2 FP=1 FN=0 precision=0.667 recall=1.000 F1=0.800
}

func ExampleMeasureProtocol() {
	// Base b with variants b~1 and b~2; background documents x and y.
	groups := map[string]string{"b": "b", "b~1": "b", "b~2": "b", "x": "x", "y": "y"}
	truth, _ := eval.NewTruth([]eval.LabeledPair{{A: "b", B: "x", Jaccard: 0.6, Cosine: 0.85}})
	assign := map[string]string{"b": "c1", "b~1": "c1", "x": "c1", "b~2": "c2", "y": "c2"}
	r := eval.MeasureProtocol(assign, groups, truth)
	for _, g := range r.Groups {
		fmt.Printf("group %s: %d of %d found together, %d clusters\n", g.Group, g.Largest, g.Size, g.Clusters)
	}
	// b~1–x and b~2–y are false positives; b–x is listed in the truth.
	fmt.Printf("mean found %.2f, mean clusters %.1f, false positives %d\n", r.MeanFound, r.MeanClusters, r.FalsePositives)
	// Output:
	// group b: 2 of 3 found together, 2 clusters
	// mean found 0.67, mean clusters 2.0, false positives 2
}

func ExampleTable_Markdown() {
	t := eval.Table{
		Header: []string{"method", "precision", "recall"},
		Rows:   [][]string{{"simhash", "0.981", "0.874"}, {"minhash", "0.962", "0.910"}},
	}
	fmt.Print(t.Markdown())
	// Output:
	// | method  | precision | recall |
	// | ------- | --------: | -----: |
	// | simhash |     0.981 |  0.874 |
	// | minhash |     0.962 |  0.910 |
}

func ExampleTruth_WriteTo() {
	truth, _ := eval.NewTruth([]eval.LabeledPair{{A: "d1", B: "d2", Jaccard: 0.9, Cosine: 1}})
	if _, err := truth.WriteTo(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"a":"d1","b":"d2","jaccard":0.9,"cosine":1}
}
