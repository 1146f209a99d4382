package dedup

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// countingStore is a Store that counts the calls the Detector makes.
type countingStore struct {
	signatures.Store
	lookups, gets, keys int
}

func (s *countingStore) Lookup(keys []signatures.Key, fn func(signatures.Key, []signatures.Entry)) {
	s.lookups++
	s.keys += len(keys)
	s.Store.Lookup(keys, fn)
}

func (s *countingStore) Get(k signatures.Key) []signatures.Entry {
	s.gets++
	return s.Store.Get(k)
}

// TestStoreSeam runs the Detector on a Store and a Clusters of its own
// (the embedded ones behind wrappers) and checks that it goes through
// them only — the same results as a Detector on its defaults — and that it
// reads a document's candidates in one batched Lookup per Insert, with no
// Get (Get is for refills on Remove).
func TestStoreSeam(t *testing.T) {
	docs := synthCorpus(rand.New(rand.NewPCG(7, 7)), "", 20, 4, 60, 0.03)
	for _, m := range Methods() {
		t.Run(m.String(), func(t *testing.T) {
			opts := Options{Method: m, MaxFanout: 2}
			table := tableOf(t, opts, docs)
			want, err := New(table, opts)
			if err != nil {
				t.Fatal(err)
			}
			d, err := New(table, opts)
			if err != nil {
				t.Fatal(err)
			}
			store := &countingStore{Store: signatures.NewMemory(d.limits)}
			d.lists = store
			d.assigned = struct{ signatures.Clusters }{&signatures.MemoryClusters{}}
			signable := 0
			for _, doc := range docs {
				r1, err1 := want.Add(doc)
				r2, err2 := d.Add(doc)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(r1, r2) {
					t.Fatalf("%s: %+v, %v on the seam; %+v, %v on the defaults", doc.ID, r2, err2, r1, err1)
				}
				if !r2.Unsignable {
					signable++
				}
			}
			if store.lookups != signable || store.gets != 0 || store.keys < signable {
				t.Errorf("%d signable inserts: %d Lookups of %d keys, %d Gets; want one Lookup each, no Get", signable, store.lookups, store.keys, store.gets)
			}
			if got, w := d.Stats(), want.Stats(); got != w {
				t.Errorf("Stats %+v on the seam, %+v on the defaults", got, w)
			}
			for _, id := range []string{docs[0].ID, docs[5].ID} {
				c1, _ := want.Remove(id)
				c2, _ := d.Remove(id)
				if !reflect.DeepEqual(c1, c2) {
					t.Fatalf("Remove(%s): %+v on the seam, %+v on the defaults", id, c2, c1)
				}
			}
			if !reflect.DeepEqual(d.Assignments(), want.Assignments()) {
				t.Error("assignments differ after removals")
			}
		})
	}
}
