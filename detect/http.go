package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

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
// an unknown id 404; an update or removal on shared signatures 409.
// Errors go to log (nil: slog's default) as well, without the documents.
func (s *Service) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &handler{s: s, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/documents", h.put)
	mux.HandleFunc("GET /v1/documents/{id...}", h.get)
	mux.HandleFunc("DELETE /v1/documents/{id...}", h.delete)
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.Stats()) })
	return mux
}

type handler struct {
	s   *Service
	log *slog.Logger
}

func (h *handler) put(w http.ResponseWriter, r *http.Request) {
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
		return nil, &InputError{"bad JSON: " + err.Error()}
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
