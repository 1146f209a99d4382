package hamming_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/doppel-search/doppel/dedup/hamming"
)

// Index documents by their 64-bit SimHash and find near-duplicates of a new
// one within 3 bits.
func ExampleIndex() {
	x, err := hamming.New(hamming.Options{}) // f=64, K=3, 4 blocks, 4 tables
	if err != nil {
		log.Fatal(err)
	}
	docs := map[uint64]uint64{
		1: 0x0123456789abcdef,
		2: 0x0123456789abcdee, // 1 bit from doc 1
		3: 0x0123456789abcd10, // 8 bits from doc 1
		4: 0xfedcba9876543210,
	}
	for id := uint64(1); id <= 4; id++ {
		if err := x.Insert(id, docs[id]); err != nil {
			log.Fatal(err)
		}
	}
	for _, m := range x.Query(0x0123456789abcdef^0b101, 3) {
		fmt.Printf("doc %d at distance %d\n", m.ID, m.Distance)
	}
	// Output:
	// doc 2 at distance 1
	// doc 1 at distance 2
}

// Load many entries at once: one sort per table instead of one insert each.
func ExampleIndex_InsertBatch() {
	x, err := hamming.New(hamming.Options{Bits: 32, MaxDistance: 2})
	if err != nil {
		log.Fatal(err)
	}
	batch := make([]hamming.Entry, 5000)
	for i := range batch {
		batch[i] = hamming.Entry{ID: uint64(i), Fingerprint: uint64(i) * 0x9e3779b9 & 0xffffffff}
	}
	if err := x.InsertBatch(batch); err != nil {
		log.Fatal(err)
	}
	err = x.InsertBatch(batch[:1])
	fmt.Println(x.Len(), errors.Is(err, hamming.ErrExists))
	// Output: 5000 true
}

// Reuse one result slice across queries so the hot path does not allocate.
func ExampleIndex_AppendQuery() {
	x, err := hamming.New(hamming.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for id, fp := range []uint64{0xf0, 0xf1, 0xf3, 0xff} {
		if err := x.Insert(uint64(id), fp); err != nil {
			log.Fatal(err)
		}
	}
	var buf []hamming.Match
	for _, q := range []uint64{0xf0, 0xff} {
		buf = x.AppendQuery(buf[:0], q, 2)
		fmt.Println(buf)
	}
	// Output:
	// [{0 240 0} {1 241 1} {2 243 2}]
	// [{3 255 0} {2 243 2}]
}

func ExampleIndex_Delete() {
	x, err := hamming.New(hamming.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := x.Insert(7, 0xabc); err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.Delete(7, 0xabc), x.Delete(7, 0xabc), x.Query(0xabc, 3))
	// Output: true false []
}

// Save an index to a file and load it back; a damaged file is refused.
func ExampleIndex_Save() {
	dir, err := os.MkdirTemp("", "hamming-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "simhash.idx")

	x, err := hamming.New(hamming.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := x.Insert(42, 0x0123456789abcdef); err != nil {
		log.Fatal(err)
	}
	if err := x.Save(path); err != nil {
		log.Fatal(err)
	}
	y, err := hamming.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(y.Query(0x0123456789abcdee, 3))

	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		log.Fatal(err)
	}
	_, err = hamming.Load(path)
	fmt.Println(errors.Is(err, hamming.ErrCorrupt))
	// Output:
	// [{42 81985529216486895 1}]
	// true
}

// Encode an index to any io.Writer and decode it with Read.
func ExampleRead() {
	x, err := hamming.New(hamming.Options{Bits: 16, MaxDistance: 1})
	if err != nil {
		log.Fatal(err)
	}
	if err := x.Insert(1, 0xbeef); err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := x.WriteTo(&buf)
	if err != nil {
		log.Fatal(err)
	}
	y, err := hamming.Read(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, y.Options().BlockWidths, y.Query(0xbeef, 1))
	// Output: 49 [8 8] [{1 48879 0}]
}

// Linear answers the same queries by scanning everything: the oracle and
// baseline for Index.
func ExampleLinear() {
	var lin hamming.Linear
	for id, fp := range []uint64{0b0000, 0b0111, 0b1111} {
		if err := lin.Insert(uint64(id), fp); err != nil {
			log.Fatal(err)
		}
	}
	var s hamming.Searcher = &lin
	fmt.Println(s.Query(0b0011, 1), s.Len())
	// Output: [{1 7 1}] 3
}

func ExampleOptions_Validate() {
	fmt.Println(hamming.Options{MaxDistance: 3, Blocks: 6}.Validate())
	fmt.Println(hamming.Options{MaxDistance: 3, Blocks: 3}.Validate())
	// Output:
	// <nil>
	// hamming: invalid options: Blocks = 3 must exceed MaxDistance = 3
}

func ExampleIndex_Stats() {
	x, err := hamming.New(hamming.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for i := range uint64(10) {
		if err := x.Insert(i, i<<40); err != nil {
			log.Fatal(err)
		}
	}
	x.Delete(3, 3<<40)
	s := x.Stats()
	fmt.Println(s.Len, s.Tables, s.Pending, s.Tombstones)
	// Output: 9 4 10 1
}
