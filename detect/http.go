package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"time"
	"unicode/utf8"

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
// a body over api.MaxBodyBytes, more than api.MaxBatch documents, a
// missing or long id, a bad date — gets 400 and an api.Error saying why;
// an unknown id 404; an update or removal on shared signatures 409. An
// error quotes at most 32 bytes of what was sent (an id, a date, a field
// name), so that its size does not grow with the request. At most
// MaxBodies POST bodies are read and decoded at once (each may take
// several times api.MaxBodyBytes of memory); a request that waits more
// than a second for its turn gets 503 with Retry-After. Errors go to log
// (nil: slog's default) as well, without the documents.
func (s *Service) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &handler{s: s, log: log, bodies: make(chan struct{}, MaxBodies())}
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
	bodies chan struct{} // a slot per POST body being read, decoded and placed
}

// MaxBodies is how many POST bodies a Handler reads and places at once:
// 2 × GOMAXPROCS (placing a batch uses every core).
func MaxBodies() int { return 2 * runtime.GOMAXPROCS(0) }

// bodyWait is how long a POST waits for its turn before a 503.
const bodyWait = time.Second

func (h *handler) put(w http.ResponseWriter, r *http.Request) {
	wait := time.NewTimer(bodyWait)
	defer wait.Stop()
	select {
	case h.bodies <- struct{}{}:
		defer func() { <-h.bodies }()
	case <-wait.C:
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, api.Error{Error: fmt.Sprintf("detect: busy: %d requests are being placed; retry", cap(h.bodies))})
		return
	case <-r.Context().Done():
		return
	}
	batch, err := decodeBatch(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
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
// after it and a body over the limit, with the reason.
func decodeBatch(body io.Reader) (*api.Batch, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var b api.Batch
	err := dec.Decode(&b)
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
		return nil, &InputError{fmt.Sprintf("body over %d bytes; send fewer documents a request", tooLarge.Limit)}
	case errors.Is(err, io.EOF):
		return nil, &InputError{"empty body; want {\"documents\": [{\"id\": …, \"text\": …}, …]}"}
	case err != nil:
		return nil, &InputError{"bad JSON: " + clip(err.Error())}
	}
	return &b, nil
}

// fail answers err with its status and reason.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var in *InputError
	status := http.StatusInternalServerError
	switch {
	case errors.As(err, &in):
		status = http.StatusBadRequest
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
