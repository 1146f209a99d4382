package indexer

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/dedup"
)

// crashChild runs in a child process: it flushes the sequence, adds more
// documents (including a master switch) without flushing, and exits without
// Close, as a crash would.
func crashChild(dir string) {
	x, err := Open(dir, Options{Policy: Hidden})
	if err != nil {
		os.Exit(2)
	}
	ctx := context.Background()
	for _, s := range sequence() {
		if x.Add(ctx, s.doc, pl(s.res)) != nil {
			os.Exit(2)
		}
	}
	if x.Flush(ctx) != nil {
		os.Exit(2)
	}
	d := mkDoc("b4", "holiday calendar vacation policy 2025")
	if x.Add(ctx, d, pl(dedup.Result{ID: "b4", Cluster: "b", Master: "b4", Duplicate: true, NewMaster: true})) != nil {
		os.Exit(2)
	}
	os.Exit(3)
}

// TestCrash kills a writer between batches: on reopen the index holds
// exactly the flushed batches, documents and member records consistent.
func TestCrash(t *testing.T) {
	if dir := os.Getenv("INDEXER_CRASH_DIR"); dir != "" {
		crashChild(dir)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$")
	cmd.Env = append(os.Environ(), "INDEXER_CRASH_DIR="+dir)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("child: %v", err)
	}
	x, err := Open(dir, Options{Policy: Hidden})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(t, x, Hidden) // b4's unflushed switch left no trace
	if n, ids := count(t, x, docsOnly()); n != 6 {
		t.Errorf("docs after crash: %v", ids)
	}
}

// TestConcurrent adds from several goroutines while searching.
func TestConcurrent(t *testing.T) {
	x, err := Open(t.TempDir(), Options{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	steps := sequence()
	var wg sync.WaitGroup
	for _, s := range steps[:2] { // masters first
		if err := x.Add(context.Background(), s.doc, pl(s.res)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps[2:] {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := x.Add(context.Background(), s.doc, pl(s.res)); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := x.Members("a"); err != nil {
				t.Error(err)
			}
			if _, err := x.Bleve().Search(bleve.NewSearchRequest(x.Searchable(bleve.NewMatchAllQuery()))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := x.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The order of a2 and a3 varies, but a3's NewMaster result always
	// leaves exactly one master.
	if n, ids := count(t, x, mastersOf("a")); n != 1 || ids[0] != "a3" {
		t.Errorf("masters of a: %v", ids)
	}
	if n, _ := count(t, x, docsOnly()); n != 2 { // a3, b1 (Skip)
		t.Errorf("indexed %d, want 2", n)
	}
}
