package clean

import (
	"strings"
	"unicode"

	"github.com/cespare/xxhash/v2"
)

// A document can hold its page's chrome with other line breaks than the
// page: Chromium's PDF of a javadoc page joins the lines of its footer
// ("Report a bug or suggest an enhancement … Copyright © 1993, 2021,
// Oracle …") into other paragraphs, so no block of the PDF is one of the
// page's chrome blocks, and [Chrome.Strip]'s runs of blocks miss it.
// Strip therefore also reads a document as one sequence of words, across
// its blocks: a run of at least MinRunWords words, each inside a window
// of RunWidth words that the host's chrome holds (its pages' chrome
// blocks read, page by page, as one sequence of words), is chrome
// wherever it stands, and is cut out of the blocks it falls in. A
// heading or a sentence that a sidebar happens to repeat is shorter than
// that and stays; a document whose words are all chrome keeps them.
// Words are compared as block keys are: lower-cased, digits read as 0.

// RunWidth is the number of words of a window of chrome (a word shingle).
const RunWidth = 5

// MinRunWords is the fewest words of a run of chrome that Strip cuts out
// of a document's blocks.
const MinRunWords = 20

// chromeWord is one word of a document: the block it is in and its byte
// offsets there.
type chromeWord struct{ block, start, end int }

// docWords returns the words of blocks, in order, as compared (lower-cased,
// digits read as 0), and where each is.
func docWords(blocks []string) ([]string, []chromeWord) {
	var words []string
	var at []chromeWord
	var b strings.Builder
	for bi, block := range blocks {
		start := -1
		for i, r := range block {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				if start < 0 {
					start = i
					b.Reset()
				}
				if unicode.IsDigit(r) {
					r = '0'
				}
				b.WriteRune(unicode.ToLower(r))
				continue
			}
			if start >= 0 {
				words = append(words, b.String())
				at = append(at, chromeWord{bi, start, i})
				start = -1
			}
		}
		if start >= 0 {
			words = append(words, b.String())
			at = append(at, chromeWord{bi, start, len(block)})
		}
	}
	return words, at
}

// chromeWords returns the words of blocks, in order, as compared.
func chromeWords(blocks []string) []string {
	words, _ := docWords(blocks)
	return words
}

// wordShingles returns the hash of each window of RunWidth consecutive
// words (none when there are fewer).
func wordShingles(words []string) []uint64 {
	if len(words) < RunWidth {
		return nil
	}
	out := make([]uint64, 0, len(words)-RunWidth+1)
	var d xxhash.Digest
	for i := 0; i+RunWidth <= len(words); i++ {
		d.Reset()
		for _, w := range words[i : i+RunWidth] {
			d.WriteString(w)   //nolint:errcheck // a Digest's writes do not fail
			d.WriteString(" ") //nolint:errcheck
		}
		out = append(out, d.Sum64())
	}
	return out
}

// stripRuns returns blocks without the runs of chrome words of host (see
// above); blocks itself when there are none, or when every word is one.
func (c *Chrome) stripRuns(host string, blocks []string) []string {
	words, at := docWords(blocks)
	shingles := wordShingles(words)
	if len(shingles) == 0 {
		return blocks
	}
	covered := make([]bool, len(words))
	c.mu.Lock()
	known := c.runs[host]
	for i, h := range shingles {
		if _, ok := known[h]; ok {
			for k := i; k < i+RunWidth; k++ {
				covered[k] = true
			}
		}
	}
	c.mu.Unlock()
	cut := make([][][2]int, len(blocks)) // byte ranges cut from each block
	cutWords := 0
	for i := 0; i < len(words); {
		if !covered[i] {
			i++
			continue
		}
		j := i
		for j < len(words) && covered[j] {
			j++
		}
		if j-i >= MinRunWords {
			cutWords += j - i
			for k := i; k < j; {
				b := at[k].block
				e := k
				for e+1 < j && at[e+1].block == b {
					e++
				}
				cut[b] = append(cut[b], [2]int{at[k].start, at[e].end})
				k = e + 1
			}
		}
		i = j
	}
	if cutWords == 0 || cutWords == len(words) {
		return blocks
	}
	kept := make([]string, 0, len(blocks))
	for i, b := range blocks {
		if len(cut[i]) == 0 {
			kept = append(kept, b)
			continue
		}
		if left := cutRanges(b, cut[i]); left != "" {
			kept = append(kept, left)
		}
	}
	return kept
}

// cutRanges returns block without the byte ranges cut (in order, not
// overlapping), white space collapsed where they were, and "" when what
// is left holds no letter or digit.
func cutRanges(block string, cut [][2]int) string {
	var b strings.Builder
	from := 0
	for _, r := range cut {
		b.WriteString(block[from:r[0]])
		b.WriteByte(' ')
		from = r[1]
	}
	b.WriteString(block[from:])
	left := strings.Join(strings.Fields(b.String()), " ")
	for _, r := range left {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return left
		}
	}
	return ""
}
