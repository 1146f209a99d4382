package ranking

import (
	"context"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
)

// TestMemberHoldingTheLineStands: a member that holds a pasted line as
// written stands for its cluster when its master holds the line's words
// but not the line, however close their scores (Promote set so high that
// scores alone never promote it), whether it is its cluster's best hit
// or the master scores higher; the master stands when it holds the
// line too, when the words are not typed as a line, and for a single word.
func TestMemberHoldingTheLineStands(t *testing.T) {
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{Policy: indexer.All})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	shared := "Converts an address back to a pointer. The const and mut forms behave alike. Identical text about the canteen menu."
	docs := map[string][2]string{
		"z-master": {"from_exposed_addr in std::ptr", "pub fn from_exposed_addr<T>(addr: usize) -> *mut T where T: Sized\n" + shared},
		"a-member": {"from_exposed_addr in core::ptr", "pub fn from_exposed_addr<T>(addr: usize) -> *const T where T: Sized\n" + shared},
		// A master holding the line's words in its title and body, many
		// times, against a member holding the line once in a long text:
		// the master scores higher.
		"y-master": {"spawn widget handle returns", "spawn widget handle returns. Handle returns spawn widget. Widget spawn returns handle fn pub."},
		"b-member": {"core ui", "pub fn spawn widget handle returns handle. " + strings.Repeat("Unrelated filler text about other things. ", 30)},
	}
	for id, text := range docs {
		d := indexer.Doc{ID: id, URL: "http://intra/" + id, Title: text[0], Body: text[1]}
		cluster, master := "c", "z-master"
		if strings.Contains(text[1], "spawn") {
			cluster, master = "c2", "y-master"
		}
		if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: cluster, Master: master, Duplicate: id != master}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{Promote: 100})
	for _, c := range []struct {
		name, q, want string
	}{
		{"the member's line", "pub fn from_exposed_addr<T>(addr: usize) -> *const T where", "a-member"},
		{"the master's line", "pub fn from_exposed_addr<T>(addr: usize) -> *mut T where", "z-master"},
		{"a line both hold", "identical text about the canteen menu", "z-master"},
		{"the member's words in another order", "const from_exposed_addr usize addr where", "z-master"},
		{"one word", "const", "z-master"},
		{"a line the member holds, its master the words more often", "pub fn spawn widget handle", "b-member"},
		{"those words in another order", "handle widget spawn pub fn", "y-master"},
	} {
		res, err := s.Search(ctx, Request{Query: c.q})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("%s: %+v, %v; want one hit", c.name, res, err)
		}
		if got := res.Hits[0].ID; got != c.want {
			t.Errorf("%s: %s stands for the cluster, want %s", c.name, got, c.want)
		}
	}
}
