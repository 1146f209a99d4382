// Package worddiff shows what differs between two texts, word by word: a
// minimal diff (Myers' O(ND) algorithm, by github.com/sergi/go-diff, over
// the texts' words) of which only the changes are shown in full, each with
// a few identical words around it; the identical runs between them are
// elided ("… 1,000 identical words …"), so that two 3,000-word pages that
// differ in one word show that word.
//
// Time and memory are bounded whatever the texts: texts longer than
// Options.MaxWords are not compared, and a comparison that runs past
// Options.Timeout is abandoned; both give ErrTooLarge, which a page shows
// as "too large to compare quickly". Memory is O(words of both texts).
//
// A [Cache] keeps recent results, and computes each at most once however
// many requests ask for it at the same time.
package worddiff
