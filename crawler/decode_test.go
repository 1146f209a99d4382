package crawler

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/bombtest"
	"github.com/doppel-search/doppel/ranking"
	"github.com/klauspost/compress/zstd"
)

// TestDecoding: what the decoding transport makes of each body, with a
// limit of 1 MiB.
func TestDecoding(t *testing.T) {
	const limit = 1 << 20
	text := randomBytes(3 << 20) // incompressible: a large body, not a bomb
	bomb := bombtest.HTML(64 << 20)
	for _, tc := range []struct {
		name, coding string
		body         []byte
		want         int    // bytes read
		err          string // a part of the error, "" for none
	}{
		{"plain", "", []byte("<p>hello</p>"), 12, ""},
		{"identity", "identity", []byte("<p>hello</p>"), 12, ""},
		{"gzip", "gzip", gzipOf([]byte("<p>hello</p>")), 12, ""},
		{"br", "br", brotliOf([]byte("<p>hello</p>")), 12, ""},
		{"zstd", "zstd", zstdOf([]byte("<p>hello</p>")), 12, ""},
		{"zstd frames", "zstd", append(zstdOf([]byte("<p>hello</p>")), zstdOf([]byte("<p>again</p>"))...), 24, ""},
		{"zstd after skippable frames", "zstd", append(bombtest.ZstdSkippable(3, 100), zstdOf([]byte("<p>hello</p>"))...), 12, ""},
		{"br inside gzip", "br, gzip", gzipOf(brotliOf([]byte("<p>hello</p>"))), 12, ""},
		{"gzip inside zstd inside br", "br, zstd, gzip", gzipOf(zstdOf(brotliOf([]byte("<p>hello</p>")))), 12, ""},
		{"large gzip body is cut", "gzip", gzipOf(text), limit + 1, ""},
		{"large br body is cut", "br", brotliOf(text), limit + 1, ""},
		{"large zstd body is cut", "zstd", zstdOf(text), limit + 1, ""},
		{"gzip bomb", "gzip", bomb.Gzip(), 0, "decompression bomb"},
		{"zlib bomb", "deflate", bomb.Zlib(), 0, "decompression bomb"},
		{"raw deflate bomb", "deflate", bomb.Deflate, 0, "decompression bomb"},
		{"br bomb", "br", bomb.Brotli(), 0, "decompression bomb"},
		{"zstd bomb", "zstd", bomb.Zstd(bombtest.ZstdOptions{}), 0, "decompression bomb"},
		{"zstd bomb of 64 frames", "zstd", bomb.Zstd(bombtest.ZstdOptions{Frames: 64}), 0, "decompression bomb"},
		{"zstd window of 1 GiB", "zstd", bomb.Zstd(bombtest.ZstdOptions{WindowLog: 30}), 0, "window over 8 MiB"},
		{"zstd frame of 64 MiB in one segment", "zstd", bomb.Zstd(bombtest.ZstdOptions{SingleSegment: true}), 0, "window over 8 MiB"},
		{"zstd skippable frames only", "zstd", bombtest.ZstdSkippable(400, 10000), 0, "more than 3145728 bytes sent for 0 decoded"},
		{"gzip empty members only", "gzip", bytes.Repeat(gzipOf(nil), 200000), 0, "more than 3145728 bytes sent for 0 decoded"},
		{"br bomb inside gzip", "br, gzip", gzipOf(bomb.Brotli()), 0, "decompression bomb"},
		{"gzip bomb inside gzip", "gzip, gzip", gzipOf(bomb.Gzip()), 0, "decompression bomb"},
		{"malformed gzip", "gzip", []byte("not gzip at all"), 0, "content encoding gzip: malformed"},
		{"malformed br", "br", []byte("not brotli at all"), 0, "content encoding br: malformed"},
		{"malformed zstd", "zstd", []byte("not zstd at all"), 0, "content encoding zstd: malformed"},
		{"unknown coding", "compress", []byte{1, 2, 3}, 0, "content encoding compress: not supported"},
		{"unknown coding in a stack", "gzip, x-bomb", []byte{1, 2, 3}, 0, "not supported: x-bomb"},
		{"four codings", "gzip, gzip, gzip, gzip", gzipOf(gzipOf(gzipOf(gzipOf([]byte("x"))))), 0, "more than 3 codings"},
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
			case asked != "gzip, deflate, br, zstd":
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

// TestDecodingCutShort: a compressed body whose connection ends early
// fails as the connection did (the fetch retries it), not as a
// malformed stream (skipped for good).
func TestDecodingCutShort(t *testing.T) {
	page := bytes.Repeat([]byte("<p>a paragraph of a page</p>"), 10000)
	for _, tc := range []struct {
		coding string
		body   []byte
	}{{"gzip", gzipOf(page)}, {"br", brotliOf(page)}, {"zstd", zstdOf(page)}} {
		cut := tc.body[:len(tc.body)/2]
		rt := decoding{limit: 1 << 20, base: roundTrip(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Encoding": {tc.coding}}, Body: io.NopCloser(bytes.NewReader(cut))}, nil
		})}
		req, _ := http.NewRequest(http.MethodGet, "http://example.test/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(resp.Body)
		var de *DecodeError
		if !errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &de) {
			t.Errorf("%s cut in half: %v, want unexpected EOF", tc.coding, err)
		}
		_ = resp.Body.Close()
	}
}

// brotliOf compresses b with brotli.
func brotliOf(b []byte) []byte {
	var out bytes.Buffer
	w := brotli.NewWriterLevel(&out, 5)
	_, _ = w.Write(b)
	_ = w.Close()
	return out.Bytes()
}

// zstdOf compresses b with zstd.
func zstdOf(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	defer enc.Close()
	return enc.EncodeAll(b, nil)
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

// TestEncodedPagesIndexed: a page sent in each coding the crawler asks
// for, and in a stack of two, is fetched, decoded and found by a word
// of its own; the crawler asked for every one of them.
func TestEncodedPagesIndexed(t *testing.T) {
	codings := map[string]func([]byte) []byte{
		"gzip": gzipOf, "br": brotliOf, "zstd": zstdOf,
		"deflate": func(b []byte) []byte {
			var out bytes.Buffer
			w := zlib.NewWriter(&out)
			_, _ = w.Write(b)
			_ = w.Close()
			return out.Bytes()
		},
		"br, gzip": func(b []byte) []byte { return gzipOf(brotliOf(b)) },
	}
	word := func(c string) string { return "codeword" + strings.NewReplacer(", ", "", "-", "").Replace(c) }
	var mu sync.Mutex
	asked := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><main><p>The pages of the archive, each sent in a coding of its own.</p>")
		for c := range codings {
			fmt.Fprintf(w, `<a href="/p/%s">%s</a> `, url.PathEscape(c), c)
		}
		fmt.Fprint(w, "</main></body></html>")
	})
	mux.HandleFunc("/p/{coding}", func(w http.ResponseWriter, r *http.Request) {
		c := r.PathValue("coding")
		mu.Lock()
		asked[r.Header.Get("Accept-Encoding")] = true
		mu.Unlock()
		page := fmt.Sprintf("<html><head><title>Sent as %s</title></head><body><main><p>This page of the archive was sent in the %s coding and holds the word %s once, among words of its own.</p></main></body></html>", c, c, word(c))
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", c)
		_, _ = w.Write(codings[c]([]byte(page)))
	})
	s := newSite(t, mux)
	c := crawl(t, t.TempDir(), testOptions(s.URL+"/"))
	recs := records(t, c)
	search := ranking.New(c.Index(), ranking.Options{})
	for cd := range codings {
		u := s.URL + "/p/" + url.PathEscape(cd)
		if r := recs[u]; r.Status != pages.Fetched || !strings.Contains(r.Text, word(cd)) {
			t.Errorf("%s: %s %q, text %.80q; want fetched with %s", cd, r.Status, r.Reason, r.Text, word(cd))
			continue
		}
		res, err := search.Search(context.Background(), ranking.Request{Query: word(cd)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 || res.Hits[0].URL != u {
			t.Errorf("search %s: %d hits, want %s alone", word(cd), len(res.Hits), u)
		}
	}
	if len(asked) != 1 || !asked[acceptEncoding] {
		t.Errorf("Accept-Encoding sent: %v, want %q", asked, acceptEncoding)
	}
}
