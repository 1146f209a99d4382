package web

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
)

// maxChangedBody bounds the body of a change notification.
const maxChangedBody = 1 << 20

// A ChangedURL is what the crawl did with one URL of a change
// notification (POST /api/changed): queued to be fetched now, or the
// reason it was not.
type ChangedURL struct {
	URL    string `json:"url"`
	Queued bool   `json:"queued"`
	Reason string `json:"reason,omitempty"`
}

// ErrBadNotification is what Options.Changed returns (wrapped) for a
// notification it refuses as a whole, such as one naming too many URLs:
// the API answers 400 with the error's text.
var ErrBadNotification = errors.New("bad change notification")

// apiChanged takes a change notification for the crawl running in this
// process, administrators only (adminOnly): a JSON list of URLs, or an
// object {"urls": [...]}, sent as application/json — which a form on
// another site cannot send without the browser asking first. It answers
// {"urls": [...]} with each URL's ChangedURL; 404 when no crawl runs
// here, 400 for a body that is not such a list.
func (srv *Server) apiChanged(w http.ResponseWriter, r *http.Request) {
	if srv.opts.Changed == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "No crawl runs in this server to notify of changes."})
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "Send the URLs as application/json."})
		return
	}
	urls, err := readURLs(http.MaxBytesReader(w, r.Body, maxChangedBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	res, err := srv.opts.Changed(urls)
	switch {
	case errors.Is(err, ErrBadNotification):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	case err != nil:
		srv.apiError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]ChangedURL{"urls": res})
}

// readURLs reads a change notification's body: a JSON array of URLs, or
// an object whose "urls" is one.
func readURLs(body io.Reader) ([]string, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(body).Decode(&raw); err != nil {
		return nil, errors.New("the body is not JSON: send a list of URLs, [\"https://…\", …]")
	}
	var urls []string
	if err := json.Unmarshal(raw, &urls); err == nil {
		return urls, nil
	}
	var obj struct {
		URLs []string `json:"urls"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.URLs == nil {
		return nil, errors.New(`send a list of URLs, ["https://…", …], or {"urls": [...]}`)
	}
	return obj.URLs, nil
}
