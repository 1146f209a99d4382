package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/detect/client"
)

// TestDetect: doppel detect serves the API on its --listen address,
// keeps what it was given in --data across a restart, and refuses a
// command line without --data, with a bad similarity, or listening off
// loopback without a token.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"detect"}, 2, "--data is required"},
		{[]string{"detect", "--data", t.TempDir(), "--similarity", "jaccard"}, 2, "unknown similarity"},
		{[]string{"detect", "--data", t.TempDir(), "--listen", "0.0.0.0:0"}, 1, "DOPPEL_DETECT_TOKEN"},
	} {
		code, _, stderr := doppel(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", tc.args, code, stderr, tc.code, tc.says)
		}
	}

	data := t.TempDir()
	text := strings.Repeat("the annual leave policy asks staff to request leave from their manager ", 8)
	docs := []client.Document{
		{ID: "a", Text: text},
		{ID: "b", Text: text + " signed"},
		{ID: "c", Text: "a page about something else entirely, the parking of bicycles at the office"},
	}
	var want []client.Answer
	for round := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"detect", "--data", data, "--listen", "127.0.0.1:0"}, &stdout, &stderr)
		}()
		var base string
		for deadline := time.Now().Add(30 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
			if m := regexp.MustCompile(`(http://[0-9.:]+)/`).FindStringSubmatch(stdout.String()); m != nil {
				base = m[1]
			}
			if time.Now().After(deadline) {
				t.Fatalf("doppel detect did not start: %s %s", stdout.String(), stderr.String())
			}
		}
		c, err := client.New(base, nil)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if _, err = c.Put(ctx, docs); err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				a, err := c.Get(ctx, d.ID)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, a)
			}
			if want[1].Cluster != want[0].Cluster || want[0].Members != 2 || want[2].Cluster == want[0].Cluster {
				t.Errorf("places %+v: want a and b in one cluster, c in another", want)
			}
		} else {
			for i, d := range docs {
				got, err := c.Get(ctx, d.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Cluster != want[i].Cluster || got.Master != want[i].Master || got.Members != want[i].Members {
					t.Errorf("after a restart %s is %+v; before %+v", d.ID, got, want[i])
				}
			}
		}
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("doppel detect: exit %d: %s", code, stderr.String())
		}
	}
}
