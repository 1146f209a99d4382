package indexer

import (
	"slices"
	"strings"
	"unicode"

	"github.com/doppel-search/doppel/internal/tokens"
)

// FieldNames holds a document's names, the keys of its title
// ([TitleKeys]): a keyword field, neither stored nor in [FieldAll]. A
// query whose words, as typed or pasted, are one of them ([NameKey]) is
// looking for that page.
const FieldNames = "names"

// maxNameKey is the longest name key kept, in bytes: longer titles are
// keyed by their first words.
const maxNameKey = 256

// NameKey is the key of text in [FieldNames]: its words as Doppel's
// tokenizer cuts them (letters and digits, lowercased; CJK as bigrams),
// joined by single spaces — punctuation, case and spacing say nothing
// ("_mm512_slli_epi16 in core::arch::x86_64 - Rust" → "mm512 slli epi16
// in core arch x86 64 rust"). It is "" for text without a word, and cut
// after its last whole word within 256 bytes.
func NameKey(text string) string {
	var b strings.Builder
	full := false
	tokens.Scan(text, func(start, end int, lower bool) {
		if full {
			return
		}
		w := text[start:end]
		if !lower {
			w = strings.ToLower(w)
		}
		if b.Len()+1+len(w) > maxNameKey {
			full = true // the words after it would not be the text's
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	})
	return b.String()
}

// TitleKeys returns the names a page with title goes by, as [NameKey]s,
// each once: the title whole; the title without the site's name after
// its last " - ", " | ", " — " or " – " ("core::iter - Rust" is also
// "core::iter"), and again at each of those kinds in turn ("Filecmp —
// File and Directory Comparisons - Intranet Wiki" is also "Filecmp —
// File and Directory Comparisons" and "Filecmp": a copy, "Copy of
// Filecmp — …", never goes by its original's name); the last part of a path of ": "-separated parts
// ("PostgreSQL: Documentation: 15: CREATE TABLE" is also "CREATE
// TABLE"); and its first word when that is an identifier — holding "_",
// "::", a digit beside a letter, or a capital after a small letter, and
// not ending in a colon (a label: "PostgreSQL: …") — followed by more
// ("_mm512_slli_epi16 in core::arch::x86_64" is also
// "_mm512_slli_epi16"). These are what people type or paste to find the
// page again: its title, or the name it documents.
func TitleKeys(title string) []string {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil
	}
	names := []string{title}
	site := title
	for _, sep := range []string{" - ", " | ", " — ", " – "} {
		if i := strings.LastIndex(site, sep); i > 0 {
			site = strings.TrimSpace(site[:i])
			names = append(names, site) // each stage: "Filecmp — File and Directory Comparisons - Wiki" is also "Filecmp — File and Directory Comparisons"
		}
	}
	if i := strings.LastIndex(site, ": "); i > 0 {
		names = append(names, site[i+2:])
	}
	if first, rest, ok := strings.Cut(site, " "); ok && strings.TrimSpace(rest) != "" && isIdentifier(first) && !strings.HasSuffix(first, ":") {
		names = append(names, first)
	}
	var out []string
	for _, n := range names {
		if k := NameKey(n); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// isIdentifier reports whether w reads as a name in code: it holds "_"
// or "::", a digit next to a letter, or a capital letter after a small
// one ("vcreate_f64", "std::env", "x86", "EscapeUnicode").
func isIdentifier(w string) bool {
	if strings.Contains(w, "_") || strings.Contains(w, "::") {
		return true
	}
	var prev rune
	for i, r := range w {
		if i > 0 {
			letterDigit := unicode.IsLetter(prev) && unicode.IsDigit(r) || unicode.IsDigit(prev) && unicode.IsLetter(r)
			if letterDigit || unicode.IsLower(prev) && unicode.IsUpper(r) {
				return true
			}
		}
		prev = r
	}
	return false
}
