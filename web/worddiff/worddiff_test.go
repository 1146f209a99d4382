package worddiff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want []Edit
	}{
		{"a b c", "a b c", nil},
		{"a  b\nc", "a b c", nil}, // white space is not a word
		{"", "", nil},
		{"a b c", "a x c", []Edit{{Equal, "a", 1}, {Delete, "b", 1}, {Insert, "x", 1}, {Equal, "c", 1}}},
		{"a b", "a b c d", []Edit{{Equal, "a b", 2}, {Insert, "c d", 2}}},
		{"", "x", []Edit{{Insert, "x", 1}}},
		{"x y", "", []Edit{{Delete, "x y", 2}}},
		{"a b c d", "b c d", []Edit{{Delete, "a", 1}, {Equal, "b c d", 3}}},
		// Context: 2 words; the identical runs between are elided.
		{"1 2 3 4 5 6 x 7 8 9 10 11 12 13 y 14 15 16", "1 2 3 4 5 6 X 7 8 9 10 11 12 13 Y 14 15 16", []Edit{
			{Elided, "", 4}, {Equal, "5 6", 2}, {Delete, "x", 1}, {Insert, "X", 1}, {Equal, "7 8", 2}, {Elided, "", 3},
			{Equal, "12 13", 2}, {Delete, "y", 1}, {Insert, "Y", 1}, {Equal, "14 15 16", 3}}},
		{"1 2 3 x 4 5 6 y", "1 2 3 4 5 6", []Edit{{Equal, "1 2 3", 3}, {Delete, "x", 1}, {Equal, "4 5 6", 3}, {Delete, "y", 1}}},
	} {
		got, err := Diff(context.Background(), tc.a, tc.b, Options{Context: 2})
		if err != nil || !slices.Equal(got.Edits, tc.want) {
			t.Errorf("Diff(%q, %q) = %v, %v; want %v", tc.a, tc.b, got.Edits, err, tc.want)
		}
	}
}

// words returns n words: w0 w1 … (all different).
func words(n int) []string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i)
	}
	return ws
}

// TestLongPagesDifferingInOneWord: two 3,000-word pages that differ in
// their 2,500th word show that word with its context, the identical rest
// elided — nothing shown removed and added that is in both.
func TestLongPagesDifferingInOneWord(t *testing.T) {
	a := words(3000)
	b := slices.Clone(a)
	b[2500] = "changed"
	got, err := Diff(context.Background(), strings.Join(a, " "), strings.Join(b, " "), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Edit{{Elided, "", 2492}, {Equal, strings.Join(a[2492:2500], " "), 8}, {Delete, "w2500", 1}, {Insert, "changed", 1},
		{Equal, strings.Join(a[2501:2509], " "), 8}, {Elided, "", 491}}
	if !slices.Equal(got.Edits, want) || got.Removed != 1 || got.Added != 1 {
		t.Errorf("got %+v", got)
	}
}

// lcs is the length of the longest common subsequence of a and b, by the
// quadratic table: the oracle of minimality.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// check verifies that res turns a into b (with no elision), and is
// minimal.
func check(t *testing.T, a, b string, res Result) {
	t.Helper()
	var ga, gb []string
	for _, e := range res.Edits {
		ws := strings.Fields(e.Text)
		if len(ws) != e.Words {
			t.Fatalf("edit %+v: %d words", e, len(ws))
		}
		switch e.Op {
		case Equal:
			ga, gb = append(ga, ws...), append(gb, ws...)
		case Delete:
			ga = append(ga, ws...)
		case Insert:
			gb = append(gb, ws...)
		default:
			t.Fatalf("edit %+v with no elision asked", e)
		}
	}
	wa, wb := strings.Fields(a), strings.Fields(b)
	if res.Same() {
		ga, gb = wa, wb // no edits: the texts must have the same words
	}
	if !slices.Equal(ga, wa) || !slices.Equal(gb, wb) {
		t.Fatalf("edits %v do not turn %q into %q", res.Edits, a, b)
	}
	if n := lcs(wa, wb); res.Removed != len(wa)-n || res.Added != len(wb)-n {
		t.Fatalf("%q → %q: %d removed, %d added; a minimal diff removes %d and adds %d", a, b, res.Removed, res.Added, len(wa)-n, len(wb)-n)
	}
}

// TestRandomAgainstLCS: random edits of random texts; every diff
// reconstructs both texts and is minimal.
func TestRandomAgainstLCS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "c", "d", "e", "the", "vpn"}
	for range 500 {
		a := make([]string, r.IntN(40))
		for i := range a {
			a[i] = vocab[r.IntN(len(vocab))]
		}
		b := slices.Clone(a)
		for range r.IntN(6) {
			switch i := r.IntN(len(b) + 1); r.IntN(3) {
			case 0:
				b = slices.Insert(b, i, vocab[r.IntN(len(vocab))])
			case 1:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			default:
				if i < len(b) {
					b[i] = vocab[r.IntN(len(vocab))]
				}
			}
		}
		sa, sb := strings.Join(a, " "), strings.Join(b, " ")
		res, err := Diff(context.Background(), sa, sb, Options{Context: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		check(t, sa, sb, res)
	}
}

// TestBounds: past the timeout or over the word limit, ErrTooLarge, fast.
func TestBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	big := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = fmt.Sprint(r.IntN(50000)) // texts differing nearly everywhere
		}
		return strings.Join(ws, " ")
	}
	a, b := big(100_000), big(100_000)
	// The timeout ends the diff (ErrTooLarge says so); how soon is not
	// asserted, as a busy machine stretches it.
	_, err := Diff(context.Background(), a, b, Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("100,000 different words with a 50ms timeout: %v", err)
	}
	if _, err := Diff(context.Background(), a, "x", Options{MaxWords: 1000}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxWords: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Diff(ctx, a, b, Options{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("past the context's deadline: %v", err)
	}
}

// TestCacheComputesOnce: 200 concurrent requests for one diff run one
// comparison; later ones are answered from the cache.
func TestCacheComputesOnce(t *testing.T) {
	c := NewCache(CacheOptions{})
	a := strings.Join(words(3000), " ")
	b := strings.Replace(a, "w1500", "changed", 1)
	var loads sync.WaitGroup
	texts := func() (string, string, error) {
		time.Sleep(20 * time.Millisecond) // everybody arrives meanwhile
		return a, b, nil
	}
	var wg sync.WaitGroup
	for range 200 {
		loads.Add(1)
		wg.Go(func() {
			defer loads.Done()
			res, err := c.Diff(context.Background(), "k", texts)
			if err != nil || res.Removed != 1 || res.Added != 1 {
				t.Errorf("%+v, %v", res, err)
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Computed != 1 || st.Shared+st.Hits != 199 || st.Entries != 1 {
		t.Errorf("stats %+v: want 1 computed, 199 shared or cached, 1 entry", st)
	}
}

func TestCacheBounds(t *testing.T) {
	c := NewCache(CacheOptions{MaxEntries: 3})
	for i := range 10 {
		c.Diff(context.Background(), fmt.Sprint(i), func() (string, string, error) { return "a b", fmt.Sprint("a b ", i), nil })
	}
	if st := c.Stats(); st.Entries != 3 || st.Computed != 10 {
		t.Errorf("stats %+v, want 3 entries of 10 computed", st)
	}
	if _, err := c.Diff(context.Background(), "9", nil); err != nil { // cached: texts not called
		t.Error(err)
	}
	// Errors from texts are not kept.
	boom := errors.New("boom")
	if _, err := c.Diff(context.Background(), "e", func() (string, string, error) { return "", "", boom }); !errors.Is(err, boom) {
		t.Errorf("texts error: %v", err)
	}
	if _, err := c.Diff(context.Background(), "e", func() (string, string, error) { return "x", "y", nil }); err != nil {
		t.Errorf("after a texts error: %v", err)
	}
	// A caller whose context ends stops waiting; the comparison goes on.
	// (The slot's wait, Timeout, is long beside the caller's 10 ms, so
	// that a loaded machine does not end both before the caller looks.)
	slow := NewCache(CacheOptions{MaxConcurrent: 1, Diff: Options{Timeout: time.Second}})
	release := make(chan struct{})
	go slow.Diff(context.Background(), "block", func() (string, string, error) { <-release; return "a", "b", nil })
	for len(slow.running) == 0 { // "block" holds the one slot
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := slow.Diff(ctx, "other", func() (string, string, error) { return "a", "b", nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting caller past its deadline: %v", err)
	}
	// With the one slot taken past the timeout, a comparison gives
	// ErrBusy.
	if _, err := slow.Diff(context.Background(), "third", func() (string, string, error) { return "a", "b", nil }); !errors.Is(err, ErrBusy) {
		t.Errorf("no slot: %v, want ErrBusy", err)
	}
	close(release)
}

// FuzzDiff: any two texts give a diff that turns one into the other,
// minimal when short.
func FuzzDiff(f *testing.F) {
	f.Add("a b c", "a x c")
	f.Add("", "x y")
	f.Add("\xff a", "a \u00a0 b")
	f.Add("a a a a b", "b a a a a")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 2000 || len(b) > 2000 {
			return
		}
		res, err := Diff(context.Background(), a, b, Options{Context: 1 << 30, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		check(t, a, b, res)
	})
}
