package crawler

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/bombtest"
)

// TestDecoding: what the decoding transport makes of each body, with a
// limit of 1 MiB.
func TestDecoding(t *testing.T) {
	const limit = 1 << 20
	text := randomBytes(3 << 20) // incompressible: a large body, not a bomb
	for _, tc := range []struct {
		name, coding string
		body         []byte
		want         int    // bytes read
		err          string // a part of the error, "" for none
	}{
		{"plain", "", []byte("<p>hello</p>"), 12, ""},
		{"identity", "identity", []byte("<p>hello</p>"), 12, ""},
		{"gzip", "gzip", gzipOf([]byte("<p>hello</p>")), 12, ""},
		{"large gzip body is cut", "gzip", gzipOf(text), limit + 1, ""},
		{"gzip bomb", "gzip", bombtest.HTML(64 << 20).Gzip(), 0, "decompression bomb"},
		{"zlib bomb", "deflate", bombtest.HTML(64 << 20).Zlib(), 0, "decompression bomb"},
		{"raw deflate bomb", "deflate", bombtest.HTML(64 << 20).Deflate, 0, "decompression bomb"},
		{"malformed gzip", "gzip", []byte("not gzip at all"), 0, "content encoding gzip: malformed"},
		{"br", "br", []byte{1, 2, 3}, 0, "content encoding br: not supported"},
		{"two codings", "gzip, gzip", gzipOf(gzipOf([]byte("x"))), 0, "more than one coding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked string
			rt := decoding{limit: limit, base: roundTrip(func(r *http.Request) (*http.Response, error) {
				asked = r.Header.Get("Accept-Encoding")
				h := http.Header{}
				if tc.coding != "" {
					h.Set("Content-Encoding", tc.coding)
				}
				return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(tc.body))}, nil
			})}
			req, _ := http.NewRequest(http.MethodGet, "http://example.test/", nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			var de *DecodeError
			switch {
			case asked != "gzip, deflate":
				t.Errorf("Accept-Encoding %q", asked)
			case !resp.Uncompressed || resp.Header.Get("Content-Encoding") != "":
				t.Errorf("the response still looks encoded to colly")
			case tc.err == "" && (err != nil || len(got) != tc.want):
				t.Errorf("read %d bytes (%v), want %d", len(got), err, tc.want)
			case tc.err != "" && (!errors.As(err, &de) || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("got %v, want a DecodeError with %q", err, tc.err)
			}
		})
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestPageBodyLimit: a page's body (HTML or text) is read to at most
// the page limit + 1 byte, plain or decoded, and a document's to the
// documents' limit: a page of 50 MB is no longer read whole to be cut at
// 5 MiB.
func TestPageBodyLimit(t *testing.T) {
	const page, doc = 1000, 50000
	body := bytes.Repeat([]byte("<p>word</p>"), 10000) // 110,000 bytes
	for _, tc := range []struct {
		ctype, coding string
		want          int
	}{
		{"text/html", "", page + 1}, {"text/html; charset=utf-8", "gzip", page + 1}, {"text/plain", "", page + 1},
		{"application/xhtml+xml", "", page + 1}, {"application/pdf", "", len(body)},
		{"", "", len(body)},
	} {
		send := body
		if tc.coding == "gzip" {
			send = gzipOf(body)
		}
		rt := plain{pageLimit: page, base: decoding{limit: doc, pageLimit: page, base: roundTrip(func(r *http.Request) (*http.Response, error) {
			h := http.Header{"Content-Type": {tc.ctype}}
			if tc.coding != "" {
				h.Set("Content-Encoding", tc.coding)
			}
			return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(send)), Request: r}, nil
		})}}
		req, _ := http.NewRequest("GET", "http://intra/p", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		if len(got) != tc.want || err != nil {
			t.Errorf("%q %q: read %d bytes (%v), want %d", tc.ctype, tc.coding, len(got), err, tc.want)
		}
	}
}
