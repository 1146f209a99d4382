package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/doppel-search/doppel/detect"
	"github.com/doppel-search/doppel/detect/client"
)

// service starts a near-duplicate service on loopback, as `doppel detect
// --data DIR` does, and returns its URL and a function that stops it.
func service() (string, func()) {
	dir, err := os.MkdirTemp("", "detect-example")
	if err != nil {
		log.Fatal(err)
	}
	s, err := detect.Open(dir, detect.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(nil))
	return srv.URL, func() { srv.Close(); s.Close(); os.RemoveAll(dir) }
}

const notice = "The office is closed on Friday for the annual staff meeting. " +
	"Please book leave through the portal before Thursday and tell your manager. " +
	"The meeting starts at nine in the main hall and lunch is served at noon. " +
	"Bring the quarterly report, your questions for the board and a pen. " +
	"Visitors sign in at the front desk and wear a badge at all times in the building. " +
	"The car park is open from eight; bicycles go in the yard behind the kitchen. " +
	"Minutes of the meeting will be sent to every team by the end of the following week."

// Send documents in a batch: each answer says the document's cluster,
// its master and how many members it has. A newer copy takes the cluster
// over, and the answer lists what the external index must change.
func ExampleClient_Put() {
	base, stop := service()
	defer stop()
	c, err := client.New(base, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	answers, err := c.Put(ctx, []client.Document{
		{ID: "notice-2024", Text: notice, Date: "2024-03-01"},
		{ID: "notice-copy", Text: strings.Replace(notice, "nine", "ten", 1), Date: "2024-03-02"},
		{ID: "parking", Text: "Bicycles are parked in the yard behind the building, never in the corridors."},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range answers {
		fmt.Printf("%s: %s, cluster %s, master %s, %d members\n", a.ID, a.Status, a.Cluster, a.Master, a.Members)
		for _, ch := range a.Changes {
			fmt.Printf("  change %s: %s, master %s, canonical %v\n", ch.ID, ch.Kind, ch.Master, ch.Canonical)
		}
	}
	// Output:
	// notice-2024: added, cluster c792e4a5fa8a1c8d4, master notice-2024, 1 members
	// notice-copy: added, cluster c792e4a5fa8a1c8d4, master notice-copy, 2 members
	//   change notice-2024: demoted, master notice-copy, canonical false
	// parking: added, cluster c1588e6b1c198c27b, master parking, 1 members
}

// Remove a document: its cluster elects another master, and the answer
// lists the change. Sending a document again unchanged changes nothing.
func ExampleClient_Delete() {
	base, stop := service()
	defer stop()
	c, _ := client.New(base, nil)
	ctx := context.Background()
	docs := []client.Document{
		{ID: "a", Text: notice, Date: "2024-03-01"},
		{ID: "b", Text: notice + " Coffee too.", Date: "2024-03-05"},
	}
	if _, err := c.Put(ctx, docs); err != nil {
		log.Fatal(err)
	}
	again, _ := c.Put(ctx, docs[:1])
	fmt.Println("a again:", again[0].Status)
	gone, err := c.Delete(ctx, "b")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("b:", gone.Status)
	for _, ch := range gone.Changes {
		fmt.Printf("  change %s: %s, canonical %v\n", ch.ID, ch.Kind, ch.Canonical)
	}
	a, _ := c.Get(ctx, "a")
	fmt.Printf("a: master %s, %d members\n", a.Master, a.Members)
	// Output:
	// a again: unchanged
	// b: removed
	//   change a: promoted, canonical true
	// a: master a, 1 members
}
