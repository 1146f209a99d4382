package pages

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"

	"github.com/doppel-search/doppel/page"
)

// TestPlacementDecode checks that a placement is read as encoding/json
// reads the same fields of the whole record, for records as encode writes
// them and as earlier versions or other hands may have (plain JSON, names
// in another case, a name twice, invalid UTF-8), and that a damaged record
// is refused as ErrCorrupt either way.
func TestPlacementDecode(t *testing.T) {
	full := Record{Page: page.Page{URL: "http://x/a", Title: `quote " and \ back`, Blocks: []string{"é ü 中文", `"status":"skipped"`},
		Text: strings.Repeat(`text with "cluster":"no" inside `, 500), Headings: []string{"h"}},
		Status: Fetched, Cluster: "c1", Simhash: 1<<63 + 5, Seq: 3, Rev: 4}
	enc, err := encode(full)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"as encode writes it", enc},
		{"plain JSON", plain},
		{"names in another case", []byte(`{"URL":"http://x/b","Status":"fetched","CLUSTER":"c2","simHash":7,"text":"t"}`)},
		{"a name twice", []byte(`{"url":"http://x/c","cluster":"c3","text":"t","cluster":"c4","status":"gone"}`)},
		{"invalid UTF-8 in the text", snappy.Encode(nil, []byte("{\"url\":\"http://x/d\",\"text\":\"a\xff\xfeb\",\"status\":\"fetched\",\"cluster\":\"c5\"}"))},
		{"no placement fields", []byte(`{"url":"http://x/e","text":"t"}`)},
	} {
		var want Record
		if err := json.Unmarshal(snappyOrPlain(t, tc.data), &want); err != nil {
			t.Fatalf("%s: encoding/json: %v", tc.name, err)
		}
		var got Placement
		if err := decode(tc.data, &got); err != nil {
			t.Errorf("%s: decode: %v", tc.name, err)
			continue
		}
		if w := (Placement{URL: want.URL, Status: want.Status, Cluster: want.Cluster, Simhash: want.Simhash}); got != w {
			t.Errorf("%s: placement %+v, want %+v", tc.name, got, w)
		}
	}
	for _, bad := range [][]byte{[]byte(`{"url":"http://x/f","status":`), []byte(`{"url":"x","simhash":"not a number"}`), {0xff, 0x00, 0x01}} {
		var p Placement
		if err := decode(bad, &p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decode(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func snappyOrPlain(tb testing.TB, data []byte) []byte {
	if data[0] == '{' {
		return data
	}
	out, err := snappy.Decode(nil, data)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkPlacementDecode reads the placement of a record of a 25 KB
// page, as re-clustering does for every page, beside encoding/json's
// read of the same fields in the same run (the decoder used before):
// x-json is how many times faster the placement decoder is.
func BenchmarkPlacementDecode(b *testing.B) {
	text := strings.Repeat("a page of documentation, with words and \"quotes\" ", 500)
	enc, err := encode(Record{Page: page.Page{URL: "http://x/a", Title: "t", Blocks: []string{text}, Text: text},
		Status: Fetched, Cluster: "c1", Simhash: 7, Seq: 1, Rev: 1})
	if err != nil {
		b.Fatal(err)
	}
	per := func(fn func() error) float64 {
		const n = 200
		start := time.Now()
		for range n {
			if err := fn(); err != nil {
				b.Fatal(err)
			}
		}
		return float64(time.Since(start).Microseconds()) / n
	}
	var fast, slow float64
	for range b.N {
		fast += per(func() error { var p Placement; return decode(enc, &p) })
		slow += per(func() error {
			var p Placement
			return json.Unmarshal(snappyOrPlain(b, enc), &p)
		})
	}
	b.ReportMetric(fast/float64(b.N), "µs/placement")
	b.ReportMetric(slow/float64(b.N), "µs/placement-json")
	b.ReportMetric(slow/fast, "x-json")
}
