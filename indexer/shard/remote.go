package shard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
)

// Dial returns a read-only Index over shards that other processes serve
// ([Server]): urls[i] is the base URL of shard i of len(urls) (each is
// asked which shard it is, and a shard in the wrong place, or of an index
// of another number of shards, fails with an error wrapping
// [ErrShardCount]). Writes return indexer.ErrReadOnly; the policy is
// the one shard 0 is read under. The index's
// mapping is [indexer.Mapping]. client may be nil (http.DefaultClient's
// transport, no timeout: searches are bounded by their contexts).
func Dial(ctx context.Context, urls []string, client *http.Client) (*Index, error) {
	if len(urls) == 0 {
		return nil, errors.New("shard: no shard to dial")
	}
	if client == nil {
		client = &http.Client{}
	}
	s := &Index{names: map[string]int{}, mapping: indexer.Mapping(), remote: true, opts: indexer.Options{ReadOnly: true}}
	children := make([]bleve.Index, len(urls))
	for i, u := range urls {
		p := &remotePart{base: strings.TrimSuffix(u, "/"), hc: client}
		var in info
		if err := p.call(ctx, http.MethodGet, "/v1/info", nil, &in); err != nil {
			return nil, fmt.Errorf("shard: dialing %s: %w", u, err)
		}
		if in.Shard != i || in.Of != len(urls) {
			return nil, fmt.Errorf("%w: %s serves shard %d of %d, given as shard %d of %d", ErrShardCount, u, in.Shard, in.Of, i, len(urls))
		}
		if i == 0 {
			if pol, err := indexer.ParsePolicy(in.Policy); err == nil {
				s.opts.Policy = pol
			}
		}
		s.parts = append(s.parts, p)
		children[i] = &remoteIndex{p: p}
		s.names[p.base] = i
	}
	s.alias = bleve.NewIndexAlias(children...)
	return s, nil
}

// A remotePart is a shard another process serves.
type remotePart struct {
	base string
	hc   *http.Client
}

// call sends in (JSON, if not nil) to the shard's path and reads the
// answer into out. An error the shard answers with is rebuilt with the
// sentinel its code names.
func (p *remotePart) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	resp, err := p.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("shard: %s%s: %w", p.base, path, err)
	}
	return nil
}

// do sends a request and checks its status.
func (p *remotePart) do(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if d, ok := ctx.Deadline(); ok {
		req.Header.Set(timeoutHeader, strconv.FormatInt(max(time.Until(d).Milliseconds(), 1), 10))
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("shard: %s: %w", p.base, ctx.Err())
		}
		return nil, fmt.Errorf("shard: %w", err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	var we wireError
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&we) != nil || we.Error == "" {
		return nil, fmt.Errorf("shard: %s%s: %s", p.base, path, resp.Status)
	}
	for _, c := range errorCodes {
		if c.code == we.Code {
			return nil, fmt.Errorf("shard: %s: %w (%s)", p.base, c.err, we.Error)
		}
	}
	return nil, fmt.Errorf("shard: %s: %s", p.base, we.Error)
}

func (p *remotePart) bleve() bleve.Index { return &remoteIndex{p: p} }

// body returns req as a shard is sent it, with st if not nil.
func body(req *bleve.SearchRequest, st *Stats) (*searchBody, error) {
	q, err := encodeQuery(req.Query)
	if err != nil {
		return nil, err
	}
	c := *req
	c.Query, c.SearchAfter, c.SearchBefore = query.NewMatchNoneQuery(), nil, nil
	raw, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	return &searchBody{Request: raw, Query: q, After: base(req.SearchAfter), Before: base(req.SearchBefore), Stats: st}, nil
}

func (p *remotePart) search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	st, _ := ctx.Value(statsKey{}).(*Stats)
	b, err := body(req, st)
	if err != nil {
		return nil, err
	}
	res := &bleve.SearchResult{}
	if err := p.call(ctx, http.MethodPost, "/v1/search", b, res); err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		if h.Sort, err = unbase(h.Sort); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (p *remotePart) stats(ctx context.Context, req *bleve.SearchRequest) (*Stats, error) {
	b, err := body(req, nil)
	if err != nil {
		return nil, err
	}
	st := &Stats{}
	return st, p.call(ctx, http.MethodPost, "/v1/stats", b, st)
}

func (p *remotePart) dict(ctx context.Context, dr dictRequest) (index.FieldDict, error) {
	var err error
	if dr.Visible, err = encodeQuery(dr.visible); err != nil {
		return nil, err
	}
	var es []dictEntry
	if err := p.call(ctx, http.MethodPost, "/v1/dict", dr, &es); err != nil {
		return nil, err
	}
	d := &sliceDict{entries: make([]index.DictEntry, len(es))}
	for i, e := range es {
		d.entries[i] = index.DictEntry{Term: e.Term, Count: e.Count, EditDistance: e.Dist}
	}
	return d, nil
}

func (p *remotePart) document(id string) (*indexer.Doc, error) {
	var out struct {
		Doc *indexer.Doc `json:"doc"`
	}
	err := p.call(context.Background(), http.MethodGet, "/v1/document?id="+url.QueryEscape(id), nil, &out)
	return out.Doc, err
}

func (p *remotePart) members(ctx context.Context, clusters []string) (map[string][]indexer.Member, error) {
	out := map[string][]indexer.Member{}
	return out, p.call(ctx, http.MethodPost, "/v1/members", clusters, &out)
}

func (p *remotePart) terms() (termCounter, error) {
	var tc termCounts
	if err := p.call(context.Background(), http.MethodPost, "/v1/terms", []string{}, &tc); err != nil {
		return nil, err
	}
	return &remoteCounter{p: p, n: tc.Docs, seen: map[string]uint64{}}, nil
}

// A remoteCounter counts terms on a remote shard, each once.
type remoteCounter struct {
	p    *remotePart
	n    uint64
	mu   sync.Mutex
	seen map[string]uint64
}

func (c *remoteCounter) docs() uint64 { return c.n }

func (c *remoteCounter) count(term string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.seen[term]; ok {
		return n
	}
	var tc termCounts
	if err := c.p.call(context.Background(), http.MethodPost, "/v1/terms", []string{term}, &tc); err != nil || len(tc.Counts) != 1 {
		return 0
	}
	c.seen[term] = tc.Counts[0]
	return tc.Counts[0]
}

func (c *remoteCounter) release() {}

func (p *remotePart) counts() (counts, error) {
	var c counts
	return c, p.call(context.Background(), http.MethodGet, "/v1/counts", nil, &c)
}

func (p *remotePart) searchable() (int, error) {
	c, err := p.counts()
	return c.Searchable, err
}

func (p *remotePart) indexed() (int, error) {
	c, err := p.counts()
	return c.Indexed, err
}

func (p *remotePart) docCount() (uint64, error) {
	var tc termCounts
	err := p.call(context.Background(), http.MethodPost, "/v1/terms", []string{}, &tc)
	return tc.Docs, err
}

func (p *remotePart) languages() (map[string]uint64, error) {
	out := map[string]uint64{}
	return out, p.call(context.Background(), http.MethodGet, "/v1/languages", nil, &out)
}

func (p *remotePart) eachID(fn func(id string) error) error {
	resp, err := p.do(context.Background(), http.MethodGet, "/v1/ids", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if sc.Text() == "." {
			return nil
		}
		id, err := strconv.Unquote(sc.Text())
		if err != nil {
			return fmt.Errorf("shard: %s/v1/ids: %w", p.base, err)
		}
		if err := fn(id); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("shard: %s/v1/ids: the list was cut short", p.base)
}

func (p *remotePart) close() error {
	p.hc.CloseIdleConnections()
	return nil
}

// A remoteIndex is a remote shard as the alias searches it: searching is
// all it does (its other methods are not to be called).
type remoteIndex struct {
	child // nil
	p     *remotePart
}

// SearchInContext searches the shard.
func (r *remoteIndex) SearchInContext(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return r.p.search(ctx, req)
}

// Search searches the shard.
func (r *remoteIndex) Search(req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	return r.p.search(context.Background(), req)
}

// Name returns the shard's URL.
func (r *remoteIndex) Name() string { return r.p.base }

// Close does nothing: the Index closes its parts.
func (r *remoteIndex) Close() error { return nil }

// A sliceDict is a dictionary read from a list (a remote shard's answer).
type sliceDict struct {
	entries []index.DictEntry
	next    int
}

// Next returns the next entry, nil at the end.
func (d *sliceDict) Next() (*index.DictEntry, error) {
	if d.next >= len(d.entries) {
		return nil, nil
	}
	d.next++
	return &d.entries[d.next-1], nil
}

// Close does nothing.
func (d *sliceDict) Close() error { return nil }

// Cardinality returns the entries' number.
func (d *sliceDict) Cardinality() int { return len(d.entries) }

// BytesRead returns 0.
func (d *sliceDict) BytesRead() uint64 { return 0 }
