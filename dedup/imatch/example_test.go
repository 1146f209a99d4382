package imatch_test

import (
	"errors"
	"fmt"

	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/dedup/imatch"
	"github.com/doppel-search/doppel/dedup/stats"
)

// collection builds the document-frequency table of a small intranet.
func collection() *stats.Table {
	var b stats.Builder
	for _, doc := range []string{
		"How to install the printer driver on the office network",
		"How to reset the printer password on the office network",
		"Install the scanner driver from the network share",
		"The office network is down for maintenance tonight",
		"Reset your password from the intranet portal",
		"The scanner on floor two needs toner",
		"Lunch menu for the week",
		"How to book a meeting room",
	} {
		b.Add(features.Tokens(doc))
	}
	return b.Table()
}

func ExampleSigner_Sign() {
	s, err := imatch.NewSigner(collection(), imatch.Options{MinTerms: 3})
	if err != nil {
		panic(err)
	}
	sign := func(text string) imatch.Signature {
		sigs, err := s.Sign(features.Tokens(text))
		if err != nil {
			panic(err)
		}
		return sigs[0]
	}
	a := sign("How to install the printer driver on the office network")
	// Word order, repetitions and rare words (here a typo) do not matter.
	b := sign("On the office network, how to install the printer driver (drvier)")
	// Replacing a lexicon term ("install" by "reset") changes the signature.
	c := sign("How to reset the printer driver on the office network")
	fmt.Println(a)
	fmt.Println(a == b, a == c)
	// Output:
	// b2f420843fce935b06d222830b8b61d232e98671
	// true false
}

func ExampleMatch() {
	s, err := imatch.NewSigner(collection(), imatch.Options{MinTerms: 3, ExtraLexicons: 10})
	if err != nil {
		panic(err)
	}
	fmt.Println("lexicons:", s.Lexicons(), "main size:", s.LexiconSize(0), "first extra size:", s.LexiconSize(1))
	a, _ := s.Sign(features.Tokens("How to install the printer driver on the office network"))
	b, _ := s.Sign(features.Tokens("How to install the scanner driver on the office network"))
	for i := range a {
		if a[i] == b[i] {
			fmt.Println("equal signatures in lexicon", i)
		}
	}
	fmt.Println("match:", imatch.Match(a, b))
	// Output:
	// lexicons: 11 main size: 13 first extra size: 7
	// equal signatures in lexicon 6
	// match: true
}

func ExampleNewSigner() {
	s, err := imatch.NewSigner(collection(), imatch.Options{}) // MinTerms 5
	if err != nil {
		panic(err)
	}
	// "for" and "office" are lexicon terms, "the" is below the range
	// (too common), "lunch" and "menu" are above it (too rare).
	_, err = s.Sign(features.Tokens("The lunch menu for the office"))
	fmt.Println(errors.Is(err, imatch.ErrUnsignable))
	fmt.Println(err)
	// Output:
	// true
	// imatch: too few lexicon terms: 2 lexicon and 1 secondary terms, need 5
}
