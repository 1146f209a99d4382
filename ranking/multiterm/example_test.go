package multiterm_test

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/ranking/multiterm"
)

func ExampleBound() {
	ix, _ := bleve.NewMemOnly(bleve.NewIndexMapping())
	defer ix.Close()
	for i, w := range []string{"print", "printer", "printers", "printing", "vpn"} {
		ix.Index(strconv.Itoa(i), map[string]string{"body": w})
	}
	for _, qs := range []string{"printer*", "print*"} {
		q, _ := bleve.NewQueryStringQuery(qs).Parse()
		q, _ = multiterm.Bound(q, multiterm.Options{MaxTerms: 3})
		res, err := ix.Search(bleve.NewSearchRequest(q))
		if errors.Is(err, multiterm.ErrTooManyTerms) {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %d documents\n", qs, res.Total)
	}
	// Output:
	// printer*: 2 documents
	// multiterm: the wildcard "print*" matches more than 3 terms in _all
}
