package dedup_test

import (
	"context"
	"fmt"
	"strings"

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

func ExampleDetector_AddAll() {
	manual := "Send a job to the shared queue and release it at any printer by holding your badge against the reader; jobs that are not released are deleted after twelve hours."
	docs := []dedup.Document{
		{ID: "/manual/printing", Text: manual},
		{ID: "/manual/printing;jsessionid=42", Text: manual},
		{ID: "/news/canteen", Text: "The renovation of the staff canteen is finished and the new seating area on the terrace is open."},
	}
	det, _ := dedup.New(nil, dedup.Options{})
	_ = det.AddAll(context.Background(), docs, 2, func(r dedup.Result) error {
		fmt.Println(r.ID, "→", r.Master)
		return nil
	})
	// Output:
	// /manual/printing → /manual/printing
	// /manual/printing;jsessionid=42 → /manual/printing
	// /news/canteen → /news/canteen
}

// Star clustering over a batch: b resembles both a and c, which do not
// resemble each other. Online, a arrives first and c cannot join a's
// cluster; star makes b, the document with the most near-duplicates, the
// master of all three.
func ExampleDetector_StarAssignments() {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	text := func(from, to int) string { return strings.Join(words[from:to], " ") }
	docs := []dedup.Document{
		{ID: "a", Text: text(0, 22)},
		{ID: "b", Text: text(2, 24)},
		{ID: "c", Text: text(4, 26)},
	}
	det, _ := dedup.New(nil, dedup.Options{Threshold: 0.7})
	for _, d := range docs {
		det.Add(d)
	}
	for i, star := range det.StarAssignments() {
		fmt.Printf("%s: online master %s, star master %s\n", star.ID, det.Assignments()[i].Master, star.Master)
	}
	// Output:
	// a: online master a, star master b
	// b: online master a, star master b
	// c: online master c, star master b
}
