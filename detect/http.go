package detect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/semaphore"

	"github.com/doppel-search/doppel/detect/api"
)

// Handler returns the service's HTTP/JSON API (see package detect/api):
//
//	POST   /v1/documents        place a batch of documents
//	GET    /v1/documents/{id}   where a document is
//	DELETE /v1/documents/{id}   remove a document
//	GET    /v1/stats            what the service holds
//
// Bad input — a body that is not one JSON object of the Batch's fields,
// more than api.MaxBatch documents, a missing or long id, a bad date —
// gets 400 and an api.Error saying why; a body over api.MaxBodyBytes
// 413 (at once when its Content-Length says so); an unknown id 404; an
// update or removal on shared signatures 409. An error quotes at most 32
// bytes of what was sent (an id, a date, a field name), so that its size
// does not grow with the request.
//
// What POST bodies may hold of memory is bounded in bytes: the bodies
// being read, decoded and placed at once may declare at most
// Options.MaxInflightBytes in all (a body without a Content-Length
// counts as api.MaxBodyBytes until it is read), and at most MaxBodies of
// them run at once; a request that waits more than a second for its
// share gets 503 with Retry-After, its body read and thrown away (see
// drain). Errors go to log (nil: slog's default) as well, without the
// documents.
func (s *Service) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &handler{s: s, log: log, bodies: make(chan struct{}, MaxBodies()), budget: semaphore.NewWeighted(int64(s.opts.MaxInflightBytes)),
		size: int64(s.opts.MaxInflightBytes)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/documents", h.put)
	mux.HandleFunc("GET /v1/documents/{id...}", h.get)
	mux.HandleFunc("DELETE /v1/documents/{id...}", h.delete)
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.Stats()) })
	return mux
}

type handler struct {
	s      *Service
	log    *slog.Logger
	bodies chan struct{}       // a slot per POST body being read, decoded and placed
	budget *semaphore.Weighted // the bytes of those bodies (Options.MaxInflightBytes)
	size   int64               // the budget's size
}

// MaxBodies is how many POST bodies a Handler reads and places at once:
// 2 × GOMAXPROCS (placing a batch uses every core).
func MaxBodies() int { return 2 * runtime.GOMAXPROCS(0) }

// bodyWait is how long a POST waits for its turn before a 503.
const bodyWait = time.Second

// DefaultMaxInflightBytes is Options.MaxInflightBytes's default: 32 MiB,
// one body of api.MaxBodyBytes at a time (or many small ones). Two of
// 31 MB at once took the service to 459 MB (docs/security.md).
const DefaultMaxInflightBytes = api.MaxBodyBytes

// A TooLargeError is a POST body over api.MaxBodyBytes (413); nothing of
// it was applied.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("detect: body over %d bytes; send fewer documents a request", e.Limit)
}

func (h *handler) put(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > api.MaxBodyBytes {
		drain(r)
		h.fail(w, r, &TooLargeError{Limit: api.MaxBodyBytes})
		return
	}
	held := r.ContentLength
	if held < 0 { // unknown: the most it may be, until it is read
		held = api.MaxBodyBytes
	}
	if !h.admit(w, r, held) {
		return
	}
	defer func() {
		h.budget.Release(held)
		<-h.bodies
	}()
	body := &countReader{r: http.MaxBytesReader(w, r.Body, api.MaxBodyBytes)}
	batch, err := decodeBatch(body)
	if r.ContentLength < 0 && body.n < held { // give back what it did not use
		h.budget.Release(held - body.n)
		held = body.n
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	answers, err := h.s.Put(r.Context(), batch.Documents)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Results{Results: answers})
}

// admit waits at most bodyWait for a slot and n bytes of the budget for
// a POST body, and answers 503 with Retry-After when it does not get
// them (nothing when the client left). The caller releases both when
// admit reports true.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, n int64) bool {
	ctx, cancel := context.WithTimeout(r.Context(), bodyWait)
	defer cancel()
	var busy string
	select {
	case h.bodies <- struct{}{}:
		if err := h.budget.Acquire(ctx, n); err == nil {
			return true
		}
		<-h.bodies
		busy = fmt.Sprintf("detect: busy: the bodies being placed hold the service's %d bytes; retry", h.size)
	case <-ctx.Done():
		busy = fmt.Sprintf("detect: busy: %d requests are being placed; retry", cap(h.bodies))
	}
	if r.Context().Err() != nil {
		return false // the client left
	}
	drain(r)
	w.Header().Set("Retry-After", "1")
	writeJSON(w, http.StatusServiceUnavailable, api.Error{Error: busy})
	return false
}

// drainMax is the most of a refused body drain reads.
const drainMax = 2 * api.MaxBodyBytes

// drain reads and discards the body of r, a POST refused before its body
// was read, up to drainMax bytes, unless its client waits for "100
// Continue" before it sends it. A client that sends its body at once and
// gets its answer before it has sent it all may see the connection reset
// instead of the answer (Go's http.Client does: the server closes a
// connection with more than 256 KiB of a body unread); read, the body
// costs the service time but no memory.
func drain(r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		_, _ = io.CopyN(io.Discard, r.Body, drainMax)
	}
}

// A countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	a, err := h.s.Get(r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	a, err := h.s.Delete(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// decodeBatch reads one JSON Batch, refusing unknown fields, anything
// after it and a body over the limit, with the reason. The documents are
// decoded one at a time (decodeObject), so that the decoder holds the
// bytes of one document, not the whole body's: json.Decoder.Decode reads
// a whole value before it decodes it.
func decodeBatch(body io.Reader) (*api.Batch, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	b, err := decodeObject(dec)
	if err == nil && dec.More() {
		err = errors.New("data after the JSON object")
	}
	if err == nil {
		if _, rest := io.Copy(io.Discard, io.MultiReader(dec.Buffered(), body)); rest != nil {
			err = rest
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &TooLargeError{Limit: tooLarge.Limit}
	case errors.Is(err, errEmpty):
		return nil, &InputError{"empty body; want {\"documents\": [{\"id\": …, \"text\": …}, …]}"}
	case err != nil:
		return nil, &InputError{"bad JSON: " + clip(err.Error())}
	}
	return b, nil
}

// errEmpty: a body of nothing but white space.
var errEmpty = errors.New("empty body")

// decodeObject reads the object {"documents": [...]} from dec.
func decodeObject(dec *json.Decoder) (*api.Batch, error) {
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, errEmpty
	}
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("want an object {\"documents\": […]}, not %s", tokenKind(tok))
	}
	var b api.Batch
	for dec.More() {
		if tok, err = token(dec); err != nil {
			return nil, err
		}
		if key, _ := tok.(string); !strings.EqualFold(key, "documents") {
			return nil, fmt.Errorf("json: unknown field %q", key)
		}
		if b.Documents, err = decodeDocuments(dec); err != nil {
			return nil, err
		}
	}
	if _, err := token(dec); err != nil { // the closing brace
		return nil, err
	}
	return &b, nil
}

// decodeDocuments reads the array of documents (or null) from dec, a
// document at a time.
func decodeDocuments(dec *json.Decoder) ([]api.Document, error) {
	tok, err := token(dec)
	if err != nil || tok == nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, fmt.Errorf("documents: want an array, not %s", tokenKind(tok))
	}
	var docs []api.Document
	for dec.More() {
		var d api.Document
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("documents[%d]: %w", len(docs), err)
		}
		docs = append(docs, d)
	}
	_, err = token(dec) // the closing bracket
	return docs, err
}

// token reads the next token of dec; the input ending before it is
// io.ErrUnexpectedEOF.
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// tokenKind names the kind of JSON value tok starts.
func tokenKind(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// fail answers err with its status and reason.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var in *InputError
	status := http.StatusInternalServerError
	switch {
	case errors.As(err, &in):
		status = http.StatusBadRequest
	case errors.As(err, new(*TooLargeError)):
		status = http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrShared):
		status = http.StatusConflict
	case r.Context().Err() != nil:
		return // the client left
	}
	if status == http.StatusInternalServerError {
		h.log.Error("detect: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, api.Error{Error: err.Error()})
}

// writeJSON writes v as the JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// quoteMax is the most bytes of a request an error quotes.
const quoteMax = 32

// quote quotes s as %q does, at most its first quoteMax bytes (cut at a
// rune), saying how long it was if cut.
func quote(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	cut := quoteMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// clip shortens a decoder's error text, which may quote a field name or
// value of any length, to 4 × quoteMax bytes.
func clip(msg string) string {
	if len(msg) <= 4*quoteMax {
		return msg
	}
	cut := 4 * quoteMax
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf("… (%d bytes)", len(msg))
}
