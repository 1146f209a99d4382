package shard

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking/multiterm"
)

// A Server serves one shard to the process that searches the index
// ([Dial]) over HTTP: its searches (with the statistics of every shard,
// which that process gathers first), its documents, cluster members,
// term counts and counts. It is an http.Handler under /v1/. It answers
// for every document whoever asks — access groups are applied by the
// process that searches — so serve it on loopback or a private network
// only. A Server is safe for concurrent use.
type Server struct {
	ix *indexer.Index
	st *store
	id identity
	// policy is the policy ix is read under.
	policy indexer.Policy
	m      mapping.IndexMapping
	mux    *http.ServeMux
	// dicts keeps the shard's dictionaries of visible terms, for the
	// dictionary requests of users' multi-term queries (see dictRequest).
	dicts *multiterm.Dictionaries
}

// NewServer returns a Server of the shard ix: a shard directory of a
// sharded index opened with [OpenShard], or a shard of an open [Index]
// ([Index.Shard]). The caller
// closes ix after the Server's last request.
func NewServer(ix *indexer.Index) (*Server, error) {
	adv, err := ix.Bleve().Advanced()
	if err != nil {
		return nil, err
	}
	st, ok := adv.(*store)
	if !ok {
		return nil, fmt.Errorf("%w: the index is a bleve index of type %T, not a shard", ErrNotSharded, adv)
	}
	id, found, err := readIdentity(ix)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: the shard does not record which shard it is", ErrNotSharded)
	}
	s := &Server{ix: ix, st: st, id: id, policy: ix.Options().Policy, m: ix.Mapping(), mux: http.NewServeMux(),
		dicts: multiterm.NewDictionaries(0)}
	s.mux.HandleFunc("GET /v1/info", s.info)
	s.mux.HandleFunc("POST /v1/search", s.search)
	s.mux.HandleFunc("POST /v1/stats", s.stats)
	s.mux.HandleFunc("POST /v1/dict", s.dict)
	s.mux.HandleFunc("GET /v1/document", s.document)
	s.mux.HandleFunc("POST /v1/members", s.members)
	s.mux.HandleFunc("POST /v1/terms", s.terms)
	s.mux.HandleFunc("GET /v1/counts", s.counts)
	s.mux.HandleFunc("GET /v1/languages", s.languages)
	s.mux.HandleFunc("GET /v1/ids", s.ids)
	return s, nil
}

// Shard returns which shard the Server serves, and of how many.
func (s *Server) Shard() (shard, of int) { return s.id.Shard, s.id.Of }

// timeoutHeader carries the searching process's time left, in
// milliseconds.
const timeoutHeader = "Doppel-Timeout"

// maxBody bounds a request's body.
const maxBody = 16 << 20

// ServeHTTP answers a request under /v1/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ms, err := strconv.ParseInt(r.Header.Get(timeoutHeader), 10, 64); err == nil && ms > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), time.Duration(ms)*time.Millisecond)
		defer cancel()
		r = r.WithContext(ctx)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	s.mux.ServeHTTP(w, r)
}

// wireError is an error as a Server answers it.
type wireError struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"` // "closed", "canceled", "deadline", "unavailable"
}

// errorCodes name the errors a client rebuilds.
var errorCodes = []struct {
	code string
	err  error
}{
	{"closed", indexer.ErrClosed},
	{"canceled", context.Canceled},
	{"deadline", context.DeadlineExceeded},
	{"unavailable", indexer.ErrUnavailable},
}

func fail(w http.ResponseWriter, status int, err error) {
	we := wireError{Error: err.Error()}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			we.Code = c.code
			break
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(we)
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		fail(w, http.StatusInternalServerError, err)
	}
}

func read(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		fail(w, http.StatusBadRequest, err)
		return false
	}
	return true
}

// info is what a shard says of itself: which shard of how many, and
// the policy it is read under.
type info struct {
	Shard  int    `json:"shard"`
	Of     int    `json:"of"`
	Policy string `json:"policy"`
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	reply(w, info{Shard: s.id.Shard, Of: s.id.Of, Policy: s.policy.String()})
}

// searchBody is a search sent to a shard.
type searchBody struct {
	Request json.RawMessage `json:"request"` // bleve's JSON, its query a placeholder
	Query   *wireQuery      `json:"query"`
	After   []string        `json:"after,omitempty"`  // SearchAfter, base64
	Before  []string        `json:"before,omitempty"` // SearchBefore, base64
	Stats   *Stats          `json:"stats,omitempty"`
}

// decode returns the search request body holds.
func (b *searchBody) decode() (*bleve.SearchRequest, error) {
	req := &bleve.SearchRequest{}
	if err := json.Unmarshal(b.Request, req); err != nil {
		return nil, err
	}
	var err error
	if req.Query, err = decodeQuery(b.Query); err != nil {
		return nil, err
	}
	if req.SearchAfter, err = unbase(b.After); err != nil {
		return nil, err
	}
	if req.SearchBefore, err = unbase(b.Before); err != nil {
		return nil, err
	}
	return req, nil
}

// base encodes sort keys, which may be binary (a date's), as base64.
func base(keys []string) []string {
	if keys == nil {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = base64.StdEncoding.EncodeToString([]byte(k))
	}
	return out
}

func unbase(keys []string) ([]string, error) {
	if keys == nil {
		return nil, nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// request reads a search request's body and decodes its request; false
// if it failed (and was answered).
func request(w http.ResponseWriter, r *http.Request) (*searchBody, *bleve.SearchRequest, bool) {
	var body searchBody
	if !read(w, r, &body) {
		return nil, nil, false
	}
	req, err := body.decode()
	if err != nil {
		fail(w, http.StatusBadRequest, err)
		return nil, nil, false
	}
	return &body, req, true
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	body, req, ok := request(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if body.Stats != nil {
		ctx = withStats(ctx, body.Stats)
	}
	res, err := s.ix.Search(ctx, req)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	res.Request = nil
	for _, h := range res.Hits {
		h.Sort, h.DecodedSort = base(h.Sort), nil
	}
	reply(w, res)
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	_, req, ok := request(w, r)
	if !ok {
		return
	}
	snap := s.st.snapshot()
	if snap == nil {
		fail(w, http.StatusServiceUnavailable, indexer.ErrClosed)
		return
	}
	defer snap.Close()
	st, err := localStats(r.Context(), snap, s.m, req)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	reply(w, st)
}

// maxDictEntries bounds a dictionary answer: far more terms than any
// query may expand to (package ranking allows 1,024), so that a longer
// answer only says that there are too many.
const maxDictEntries = 1 << 17

// dictEntry is a term of a dictionary answer: the term, its documents
// and its edit distance.
type dictEntry struct {
	Term  string `json:"t"`
	Count uint64 `json:"n"`
	Dist  uint8  `json:"d,omitempty"`
}

func (s *Server) dict(w http.ResponseWriter, r *http.Request) {
	var dr dictRequest
	if !read(w, r, &dr) {
		return
	}
	snap := s.st.snapshot()
	if snap == nil {
		fail(w, http.StatusServiceUnavailable, indexer.ErrClosed)
		return
	}
	defer snap.Close()
	var err error
	if dr.visible, err = decodeQuery(dr.Visible); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	d, err := filteredDict(r.Context(), snap, s.m, s.dicts, dr)
	if err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	defer d.Close()
	out := []dictEntry{}
	for len(out) < maxDictEntries {
		e, err := d.Next()
		if err != nil {
			fail(w, http.StatusInternalServerError, err)
			return
		}
		if e == nil {
			break
		}
		out = append(out, dictEntry{e.Term, e.Count, e.EditDistance})
	}
	reply(w, out)
}

func (s *Server) document(w http.ResponseWriter, r *http.Request) {
	d, err := s.ix.Document(r.URL.Query().Get("id"))
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	reply(w, struct {
		Doc *indexer.Doc `json:"doc"`
	}{d})
}

func (s *Server) members(w http.ResponseWriter, r *http.Request) {
	var clusters []string
	if !read(w, r, &clusters) {
		return
	}
	ms, err := s.ix.MembersOfContext(r.Context(), clusters)
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	reply(w, ms)
}

// termCounts are a shard's records and how many hold each term asked.
type termCounts struct {
	Docs   uint64   `json:"docs"`
	Counts []uint64 `json:"counts"`
}

func (s *Server) terms(w http.ResponseWriter, r *http.Request) {
	var terms []string
	if !read(w, r, &terms) {
		return
	}
	snap := s.st.snapshot()
	if snap == nil {
		fail(w, http.StatusServiceUnavailable, indexer.ErrClosed)
		return
	}
	c := &snapshotCounter{snap: snap}
	defer c.release()
	var err error
	if c.n, err = snap.DocCount(); err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	out := termCounts{Docs: c.n, Counts: make([]uint64, len(terms))}
	for i, t := range terms {
		out.Counts[i] = c.count(t)
	}
	reply(w, out)
}

// counts are a shard's counts of documents.
type counts struct {
	Searchable int    `json:"searchable"`
	Indexed    int    `json:"indexed"`
	Records    uint64 `json:"records"`
}

func (s *Server) counts(w http.ResponseWriter, _ *http.Request) {
	p := &localPart{ix: s.ix, st: s.st, m: s.m}
	var c counts
	var err error
	if c.Searchable, err = p.searchable(); err == nil {
		if c.Indexed, err = p.indexed(); err == nil {
			c.Records, err = p.docCount()
		}
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	reply(w, c)
}

func (s *Server) languages(w http.ResponseWriter, _ *http.Request) {
	ls, err := (&localPart{ix: s.ix, st: s.st, m: s.m}).languages()
	if err != nil {
		fail(w, http.StatusInternalServerError, err)
		return
	}
	reply(w, ls)
}

// ids writes the id of every document, a line each, then a line "."
// (a reader that gets no such line knows the list is cut short).
func (s *Server) ids(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	bw := bufio.NewWriter(w)
	err := s.ix.EachID(func(id string) error {
		if err := r.Context().Err(); err != nil {
			return err
		}
		_, err := bw.WriteString(strconv.Quote(id) + "\n")
		return err
	})
	if err == nil {
		bw.WriteString(".\n")
	}
	bw.Flush()
}

// The server's dictionary answers are dictionaries on the client.
var _ index.FieldDict = (*sliceDict)(nil)
