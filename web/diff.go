package web

import "strings"

// An Edit is a run of words of a word-level diff: Op is '=' (in both), '-'
// (only in the first text) or '+' (only in the second).
type Edit struct {
	Op   byte   `json:"op"`
	Text string `json:"text"`
}

// maxDiffWords bounds the texts compared word by word (the table is
// quadratic); longer texts are compared on their first maxDiffWords words
// and the rest is reported as one edit each.
const maxDiffWords = 2000

// Diff returns the word-level differences between a and b, by longest
// common subsequence, with adjacent words of the same kind merged.
func Diff(a, b string) []Edit {
	wa, wb := strings.Fields(a), strings.Fields(b)
	var tailA, tailB []string
	if len(wa) > maxDiffWords {
		wa, tailA = wa[:maxDiffWords], wa[maxDiffWords:]
	}
	if len(wb) > maxDiffWords {
		wb, tailB = wb[:maxDiffWords], wb[maxDiffWords:]
	}
	// lcs[i][j] = length of the LCS of wa[i:] and wb[j:].
	n, m := len(wa), len(wb)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if wa[i] == wb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Edit
	add := func(op byte, w string) {
		if k := len(out) - 1; k >= 0 && out[k].Op == op {
			out[k].Text += " " + w
			return
		}
		out = append(out, Edit{Op: op, Text: w})
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case wa[i] == wb[j]:
			add('=', wa[i])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			add('-', wa[i])
			i++
		default:
			add('+', wb[j])
			j++
		}
	}
	for ; i < n; i++ {
		add('-', wa[i])
	}
	for ; j < m; j++ {
		add('+', wb[j])
	}
	if len(tailA) > 0 {
		out = append(out, Edit{Op: '-', Text: strings.Join(tailA, " ")})
	}
	if len(tailB) > 0 {
		out = append(out, Edit{Op: '+', Text: strings.Join(tailB, " ")})
	}
	return out
}
