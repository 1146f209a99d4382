package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEvalSmallCorpus runs doppel eval end to end on a synthetic corpus
// with computed ground truth and checks the tables it prints.
func TestEvalSmallCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	word := func() string { return fmt.Sprintf("w%c%c%c", 'a'+r.IntN(26), 'a'+r.IntN(26), 'a'+r.IntN(26)) }
	var lines []string
	for g := range 6 {
		base := make([]string, 300)
		for i := range base {
			base[i] = word()
		}
		for v := range 3 {
			text := strings.Join(base, " ")
			if v > 0 {
				text += " " + word() // one word appended: resemblance ~0.99
			}
			lines = append(lines, fmt.Sprintf(`{"id":"g%d-%d","group":"g%d","text":%q}`, g, v, g, text))
		}
	}
	in := writeFile(t, "docs.jsonl", strings.Join(lines, "\n"))
	code, stdout, stderr := doppel(t, "eval", "--in", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"18 documents; ground truth at 0.90: 18 resemblance pairs",
		"| hybrid (resemblance) |    18 |   1.000 |   1.000 |",
		"| Hamming k |",
		"| extra lexicons |",
		"| hybrid (cosine)      | star       |      1.000 |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, _ := doppel(t, "eval", "--in", in, "--tables", "bogus"); code != 1 {
		t.Errorf("unknown table: exit %d, want 1", code)
	}
}
