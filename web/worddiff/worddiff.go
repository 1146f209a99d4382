package worddiff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// ErrTooLarge means two texts were not compared: one has more than
// Options.MaxWords words, or the comparison ran past Options.Timeout (the
// texts differ in too many places to compare quickly).
var ErrTooLarge = errors.New("worddiff: too large to compare quickly")

// An Op says what an Edit is.
type Op string

// The operations.
const (
	Equal  Op = "=" // words in both texts
	Delete Op = "-" // words only in the first text
	Insert Op = "+" // words only in the second text
	Elided Op = "…" // identical words left out: Words says how many, Text is empty
)

// An Edit is a run of words of a diff.
type Edit struct {
	Op    Op     `json:"op"`
	Text  string `json:"text,omitempty"` // the words, separated by single spaces
	Words int    `json:"words"`          // words in Text, or left out (Elided)
}

// A Result is what differs between two texts.
type Result struct {
	// Edits turn the first text into the second: Equal, Delete and Insert
	// runs in text order, long Equal runs cut down to their ends and an
	// Elided count. Nil when the texts have the same words.
	Edits []Edit `json:"edits"`
	// Removed and Added count the words only in the first and only in the
	// second text.
	Removed int `json:"removed"`
	Added   int `json:"added"`
}

// Same reports whether the texts have the same words.
func (r Result) Same() bool { return r.Removed == 0 && r.Added == 0 }

// Options configures Diff. The zero value means the defaults.
type Options struct {
	// Timeout is the longest a comparison runs; past it, Diff gives
	// ErrTooLarge. Default 1s.
	Timeout time.Duration
	// Context is how many identical words are shown before and after
	// each change; the rest of an identical run is elided if that leaves
	// out more than Context words. Default 8.
	Context int
	// MaxWords is the longest text compared, in words; longer ones give
	// ErrTooLarge at once. Default 200,000 (the comparison holds about 40
	// bytes per word).
	MaxWords int
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if o.Context <= 0 {
		o.Context = 8
	}
	if o.MaxWords <= 0 {
		o.MaxWords = 200_000
	}
	return o
}

// Diff returns what differs between the words of a and b (split at white
// space). It stops at ctx's deadline or Options.Timeout, whichever comes
// first, with ErrTooLarge (or ctx's error if ctx was canceled). Cost:
// O((N+M)·D) time for texts of N and M words that differ in D, O(N+M)
// memory.
func Diff(ctx context.Context, a, b string, opts Options) (Result, error) {
	opts.EnsureDefaults()
	if n, m := countWords(a, opts.MaxWords+1), countWords(b, opts.MaxWords+1); n > opts.MaxWords || m > opts.MaxWords {
		return Result{}, fmt.Errorf("%w: more than %d words", ErrTooLarge, opts.MaxWords)
	}
	deadline := diffDeadline(ctx, opts.Timeout)
	wa, wb := strings.Fields(a), strings.Fields(b)
	ra, rb := encode(wa, wb)

	// The common ends are the bulk of near-duplicates: off they go first.
	pre, suf := commonEnds(ra, rb)
	middle, inTime := diffMiddle(ra[pre:len(ra)-suf], rb[pre:len(rb)-suf], deadline)
	if !inTime {
		return Result{}, pastDeadline(ctx, opts.Timeout, len(wa), len(wb))
	}
	return fold(wordRuns(wa, wb, pre, middle), opts.Context), nil
}

// diffDeadline returns the earlier of now plus timeout and ctx's deadline.
func diffDeadline(ctx context.Context, timeout time.Duration) time.Time {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return deadline
}

// commonEnds returns the lengths of the common prefix of ra and rb and of
// their common suffix in what is left after the prefix.
func commonEnds(ra, rb []rune) (pre, suf int) {
	for pre < len(ra) && pre < len(rb) && ra[pre] == rb[pre] {
		pre++
	}
	for suf < len(ra)-pre && suf < len(rb)-pre && ra[len(ra)-1-suf] == rb[len(rb)-1-suf] {
		suf++
	}
	return pre, suf
}

// diffMiddle diffs the encoded words ma and mb left between the common
// ends; false means the comparison ran past deadline.
func diffMiddle(ma, mb []rune, deadline time.Time) ([]diffmatchpatch.Diff, bool) {
	switch {
	case len(ma) == 0 && len(mb) == 0:
		return nil, true
	case len(ma) == 0:
		return []diffmatchpatch.Diff{{Type: diffmatchpatch.DiffInsert, Text: string(mb)}}, true
	case len(mb) == 0:
		return []diffmatchpatch.Diff{{Type: diffmatchpatch.DiffDelete, Text: string(ma)}}, true
	case len(ma) == 1 || len(mb) == 1:
		return single(ma, mb), true // (DiffBisect needs two words a side)
	}
	// DiffBisect with a zero DiffTimeout: the deadline bounds the
	// search, and go-diff skips its "half match" speed-up, which is
	// quadratic on long texts and ignores the deadline.
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	middle := dmp.DiffBisect(string(ma), string(mb), deadline)
	if time.Now().After(deadline) {
		return nil, false
	}
	return middle, true
}

// pastDeadline is Diff's error for a comparison of texts of na and nb
// words that ran past its deadline: ctx's error if ctx was canceled, else
// ErrTooLarge.
func pastDeadline(ctx context.Context, timeout time.Duration, na, nb int) error {
	if err := ctx.Err(); errors.Is(err, context.Canceled) {
		return fmt.Errorf("worddiff: %w", err)
	}
	return fmt.Errorf("%w: over %v (%d and %d words, differing in many places)", ErrTooLarge, timeout, na, nb)
}

// wordRuns returns the runs of words, in order: the common start (pre
// words), the middle as diffed, the common end.
func wordRuns(wa, wb []string, pre int, middle []diffmatchpatch.Diff) []run {
	var runs []run
	add := func(op Op, words []string) {
		if len(words) == 0 {
			return
		}
		if k := len(runs) - 1; k >= 0 && runs[k].op == op {
			runs[k].words = append(runs[k].words, words...)
			return
		}
		runs = append(runs, run{op, words})
	}
	add(Equal, wa[:pre])
	ia, ib := pre, pre
	for _, d := range middle {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			add(Equal, wa[ia:ia+n])
			ia, ib = ia+n, ib+n
		case diffmatchpatch.DiffDelete:
			add(Delete, wa[ia:ia+n])
			ia += n
		case diffmatchpatch.DiffInsert:
			add(Insert, wb[ib:ib+n])
			ib += n
		}
	}
	add(Equal, wa[ia:])
	return runs
}

// single diffs two word sequences one of which is one word long.
func single(ma, mb []rune) []diffmatchpatch.Diff {
	ins, del := diffmatchpatch.DiffInsert, diffmatchpatch.DiffDelete
	long, short := mb, ma
	if len(ma) > len(mb) {
		long, short, ins = ma, mb, del
	}
	i := slices.Index(long, short[0])
	if i < 0 {
		return []diffmatchpatch.Diff{{Type: diffmatchpatch.DiffDelete, Text: string(ma)}, {Type: diffmatchpatch.DiffInsert, Text: string(mb)}}
	}
	return []diffmatchpatch.Diff{{Type: ins, Text: string(long[:i])}, {Type: diffmatchpatch.DiffEqual, Text: string(short)},
		{Type: ins, Text: string(long[i+1:])}}
}

// run is a run of words with the same Op.
type run struct {
	op    Op
	words []string
}

// fold turns runs into edits, cutting identical runs down to context words
// beside each change.
func fold(runs []run, context int) Result {
	var r Result
	for _, x := range runs {
		switch x.op {
		case Delete:
			r.Removed += len(x.words)
		case Insert:
			r.Added += len(x.words)
		}
	}
	if r.Same() {
		return r
	}
	edit := func(op Op, words []string) {
		if len(words) > 0 {
			r.Edits = append(r.Edits, Edit{Op: op, Text: strings.Join(words, " "), Words: len(words)})
		}
	}
	for i, x := range runs {
		if x.op != Equal {
			edit(x.op, x.words)
			continue
		}
		head, tail := context, context // words kept after the change before, before the change after
		if i == 0 {
			head = 0
		}
		if i == len(runs)-1 {
			tail = 0
		}
		if len(x.words)-head-tail <= context { // eliding would save little
			edit(Equal, x.words)
			continue
		}
		edit(Equal, x.words[:head])
		r.Edits = append(r.Edits, Edit{Op: Elided, Words: len(x.words) - head - tail})
		edit(Equal, x.words[len(x.words)-tail:])
	}
	return r
}

// encode maps each distinct word of wa and wb to a rune, so that go-diff's
// character diff is a word diff. Runes skip the surrogate range, which
// strings cannot hold.
func encode(wa, wb []string) ([]rune, []rune) {
	ids := map[string]rune{}
	next := rune(1)
	enc := func(ws []string) []rune {
		out := make([]rune, len(ws))
		for i, w := range ws {
			r, ok := ids[w]
			if !ok {
				r = next
				ids[w] = r
				if next++; next == 0xD800 {
					next = 0xE000
				}
			}
			out[i] = r
		}
		return out
	}
	return enc(wa), enc(wb)
}

// countWords counts the words of s as strings.Fields splits them, up to
// limit.
func countWords(s string, limit int) int {
	n, in := 0, false
	for _, c := range s {
		space := unicode.IsSpace(c)
		if !space && !in {
			if n++; n >= limit {
				return n
			}
		}
		in = !space
	}
	return n
}
