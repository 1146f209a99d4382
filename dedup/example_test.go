package dedup_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// A crawl revisits pages: the master of a cluster of copies is gone (404),
// a copy changed a little, another changed into a page of its own.
func ExampleDetector_Remove() {
	manual := "Send a job to the shared queue and release it at any printer by holding your badge against the reader; jobs that are not released are deleted after twelve hours."
	det, _ := dedup.New(nil, dedup.Options{})
	for _, id := range []string{"/manual/print", "/manual/print?v=2", "/old/manual/print", "/print.html"} {
		det.Add(dedup.Document{ID: id, Text: manual})
	}
	ch, _ := det.Remove("/manual/print")
	fmt.Printf("removed the master: %s elected %v\n", ch.Master, ch.Elected)

	ch, _ = det.Replace(dedup.Document{ID: "/old/manual/print", Text: manual + " Thanks."})
	fmt.Printf("trivial change: left %v, master %s\n", ch.Left, ch.Result.Master)

	ch, _ = det.Replace(dedup.Document{ID: "/print.html", Text: "The canteen is closed on Friday for the staff party; the coffee bar on the second floor stays open."})
	fmt.Printf("real change: left %v, master %s\n", ch.Left, ch.Result.Master)
	// Output:
	// removed the master: /manual/print?v=2 elected true
	// trivial change: left false, master /manual/print?v=2
	// real change: left true, master /print.html
}

// A crawler tells an unchanged page from a changed one before updating.
func ExampleFingerprint_Compare() {
	det, _ := dedup.New(nil, dedup.Options{})
	text := "To work from home connect to the corporate network through the VPN client and sign in with your network account and the code from your authenticator app; the client picks the nearest gateway."
	det.Add(dedup.Document{ID: "vpn", Text: text})
	stored, _ := det.Fingerprint("vpn")
	for _, version := range []string{
		strings.ToUpper(text),
		strings.Replace(text, "nearest", "fastest", 1),
		"The canteen is closed on Friday for the staff party.",
	} {
		p, _ := det.Prepare(dedup.Document{ID: "vpn", Text: version})
		fmt.Println(p.Fingerprint().Compare(stored, det.Options().HammingK))
	}
	// Output:
	// unchanged
	// trivial
	// changed
}

// A detector kept across restarts: its state written to a snapshot, the
// verification sets in a file beside it, and read back without signing
// any document again.
func ExampleReadSnapshot() {
	dir, _ := os.MkdirTemp("", "doppel-example")
	defer os.RemoveAll(dir)
	opts := dedup.Options{SetsFile: filepath.Join(dir, "sets")}
	manual := "Send a job to the shared queue and release it at any printer by holding your badge against the reader; jobs that are not released are deleted after twelve hours."
	det, _ := dedup.New(nil, opts)
	det.Add(dedup.Document{ID: "/manual/printing", Text: manual})
	var snap bytes.Buffer
	_ = det.WriteSnapshot(&snap)
	det.Close()

	again, err := dedup.ReadSnapshot(&snap, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer again.Close()
	res, _ := again.Add(dedup.Document{ID: "/print/manual/printing", Text: manual})
	fmt.Println(res.ID, "→", res.Master)
	// Output:
	// /print/manual/printing → /manual/printing
}

// The web preset on strings alone, with no statistics table: a copy with a
// banner and another date is found (the zero Options, at resemblance 0.9
// alone, put it in a cluster of its own), and a copy under a shorter URL
// takes its cluster over — Demoted names the master it replaced, for an
// index kept in step.
func ExampleWeb() {
	text := "Expense claims are filed in the finance portal within thirty days of the end of a trip. Attach a photo of every receipt, " +
		"note the project code, and ask your manager to approve the claim before the end of the month so that it is paid with your salary."
	det, err := dedup.New(nil, dedup.Web())
	if err != nil {
		panic(err)
	}
	for _, d := range []dedup.Document{
		{ID: "/finance/travel/expenses.html", Text: "Updated 3 March 2025. " + text},
		{ID: "/print/finance/travel/expenses.html", Text: "Printer-friendly version. Updated 9 June 2025. " + text},
		{ID: "/expenses", Text: "Updated 3 March 2025. " + text},
		{ID: "/canteen", Text: "The staff canteen is open from eight until three; the menu of the week is on the notice board by the lifts."},
	} {
		d.URL = d.ID
		res, err := det.Add(d)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: cluster of %s, duplicate %v, demoted %q\n", res.ID, res.Master, res.Duplicate, res.Demoted)
	}
	// Output:
	// /finance/travel/expenses.html: cluster of /finance/travel/expenses.html, duplicate false, demoted ""
	// /print/finance/travel/expenses.html: cluster of /finance/travel/expenses.html, duplicate true, demoted ""
	// /expenses: cluster of /expenses, duplicate true, demoted "/finance/travel/expenses.html"
	// /canteen: cluster of /canteen, duplicate false, demoted ""
}
