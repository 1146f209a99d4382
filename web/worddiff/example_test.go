package worddiff_test

import (
	"context"
	"fmt"

	"github.com/doppel-search/doppel/web/worddiff"
)

func ExampleDiff() {
	master := "To work from home you connect to the corporate network through the VPN client. Ask the service desk for an account."
	copy := "To work from home you connect to the corporate network through the VPN client. Ask the IT service desk for an account."
	res, _ := worddiff.Diff(context.Background(), master, copy, worddiff.Options{Context: 3})
	for _, e := range res.Edits {
		fmt.Printf("%s %d %q\n", e.Op, e.Words, e.Text)
	}
	// Output:
	// … 13 ""
	// = 3 "client. Ask the"
	// + 1 "IT"
	// = 5 "service desk for an account."
}
