package dedup_test

import (
	"fmt"

	"github.com/doppel-search/doppel/dedup"
)

func Example() {
	docs := []dedup.Document{
		{ID: "manual", URL: "http://intranet/manual/vpn", Text: "To work from home connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app."},
		{ID: "print", URL: "http://intranet/print/manual/vpn", Text: "To work from home connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app."},
		{ID: "news", URL: "http://intranet/news/canteen", Text: "The renovation of the staff canteen is finished and the new seating area on the terrace is open to everyone."},
	}
	// Collection statistics first (one pass), then detection.
	tb, _ := dedup.NewTableBuilder(dedup.Options{})
	for _, d := range docs {
		tb.Add(d.Text)
	}
	det, _ := dedup.New(tb.Table(), dedup.Options{})
	for _, d := range docs {
		res, _ := det.Add(d)
		fmt.Printf("%s: master %s, duplicate %v, pairs %d\n", res.ID, res.Master, res.Duplicate, len(res.Pairs))
	}
	// Output:
	// manual: master manual, duplicate false, pairs 0
	// print: master manual, duplicate true, pairs 1
	// news: master news, duplicate false, pairs 0
}
