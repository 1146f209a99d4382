// Package esbulk is a pass-through proxy for Elasticsearch or OpenSearch
// that adds near-duplicate fields to every document indexed through its
// _bulk API: dup_cluster, dup_master and dup_canonical, from the
// near-duplicate service (doppel detect). When a write changes other
// documents' places — a master handed over, members re-pointed — it
// sends the engine partial updates (_bulk update actions) for them, so
// that a search can collapse on dup_cluster and filter on dup_canonical.
// Every other request passes through unchanged.
//
// It was tested against a stand-in that speaks the small subset of the
// _bulk API it uses (index, create, delete and update actions), not
// against a real Elasticsearch or OpenSearch.
package esbulk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/doppel-search/doppel/detect/client"
	"github.com/doppel-search/doppel/detect/placer"
)

// MaxBody bounds a _bulk request's body: 100 MiB, Elasticsearch's
// default http.max_content_length.
const MaxBody = 100 << 20

// Options name the fields of the engine's documents the service reads.
// The zero value reads "content", "title", "url" and "date".
type Options struct {
	Text, Title, URL, Date string
	// Index is the index whose documents the partial updates go to. One
	// service holds the documents of one index. Default: the index of
	// the request's path, else of its first action.
	Index string
}

// A Proxy is an http.Handler in front of the engine.
type Proxy struct {
	engine *placer.Engine
	detect *client.Client
	opts   Options
}

// New returns a proxy in front of the engine at engine (such as
// "http://127.0.0.1:9200"), asking the service detect, sending its own
// requests with hc (nil: http.DefaultClient).
func New(engine string, detect *client.Client, hc *http.Client, opts Options) (*Proxy, error) {
	e, err := placer.NewEngine("esbulk", engine, hc)
	if err != nil {
		return nil, err
	}
	placer.Defaults(map[*string]string{&opts.Text: "content", &opts.Title: "title", &opts.URL: "url", &opts.Date: "date"})
	return &Proxy{engine: e, detect: detect, opts: opts}, nil
}

// ServeHTTP handles POST /_bulk and POST /{index}/_bulk and passes
// everything else through.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	index, isBulk := "", path == "_bulk"
	if i, ok := strings.CutSuffix(path, "/_bulk"); ok && !strings.Contains(i, "/") {
		index, isBulk = i, true
	}
	if !isBulk || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
		p.engine.Pass.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		fail(w, http.StatusBadRequest, fmt.Sprintf("reading the body: %v", err))
		return
	}
	b, err := parse(body, index)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	places, err := placer.Apply(r.Context(), p.detect, b.writes(p.opts))
	var ce *client.Error
	switch {
	case errors.As(err, &ce) && ce.Status == http.StatusBadRequest:
		fail(w, http.StatusBadRequest, "the near-duplicate service refused the documents: "+ce.Reason)
		return
	case err != nil:
		fail(w, http.StatusBadGateway, "the near-duplicate service: "+err.Error())
		return
	}
	indexed := b.addFields(places)
	resp, err := p.send(r.Context(), r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), b.encode())
	if err != nil {
		fail(w, http.StatusBadGateway, err.Error())
		return
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		fail(w, http.StatusBadGateway, err.Error())
		return
	}
	if resp.StatusCode == http.StatusOK {
		target := p.opts.Index
		if target == "" {
			target = b.firstIndex
		}
		if err := p.update(r.Context(), r.Header.Get("Authorization"), target, places, indexed); err != nil {
			fail(w, http.StatusBadGateway, "the bulk was applied; the partial updates of the documents it changed failed: "+err.Error())
			return
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// update sends partial updates of the near-duplicate fields of every
// document in places, but those the bulk indexed or deleted, to index.
func (p *Proxy) update(ctx context.Context, auth, index string, places map[string]placer.Place, indexed map[string]bool) error {
	var buf bytes.Buffer
	n := 0
	for id, pl := range places {
		if pl.Gone || indexed[id] {
			continue
		}
		meta, _ := json.Marshal(map[string]any{"update": map[string]string{"_index": index, "_id": id}})
		doc, _ := json.Marshal(map[string]any{"doc": pl.Fields()})
		buf.Write(meta)
		buf.WriteByte('\n')
		buf.Write(doc)
		buf.WriteByte('\n')
		n++
	}
	if n == 0 {
		return nil
	}
	resp, err := p.send(ctx, "/_bulk", "", auth, buf.Bytes())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var res struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			ID    string `json:"_id"`
			Error *struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s (%v)", resp.Status, err)
	}
	var errs []error
	for _, item := range res.Items {
		for _, it := range item {
			// A document the service holds but the index does not (not
			// indexed, or deleted without the proxy) has nothing to update.
			if it.Error != nil && it.Error.Type != "document_missing_exception" {
				errs = append(errs, fmt.Errorf("%s: %s: %s", it.ID, it.Error.Type, it.Error.Reason))
			}
		}
	}
	return errors.Join(errs...)
}

// send posts an NDJSON body to the engine's path.
func (p *Proxy) send(ctx context.Context, path, query, auth string, body []byte) (*http.Response, error) {
	return p.engine.Post(ctx, path, query, "application/x-ndjson", auth, body)
}

// fail answers as Elasticsearch does, with an error object.
func fail(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"type": "doppel_detect_exception", "reason": "esbulk: " + reason}, "status": status})
}

// A bulk is a parsed _bulk body: its actions in order.
type bulk struct {
	actions    []action
	firstIndex string
}

// An action is one action line and, but for delete, its source line.
type action struct {
	kind   string         // index, create, update or delete
	meta   map[string]any // the action's metadata (_index, _id, …)
	id     string
	source map[string]any // index and create: the document; nil for delete
	raw    []byte         // update: its line, passed on unchanged
}

// parse reads an NDJSON _bulk body; index is the path's index.
func parse(body []byte, index string) (*bulk, error) {
	b := &bulk{firstIndex: index}
	lr := newLineReader(body)
	for {
		l, ok := lr.next()
		if !ok {
			break
		}
		a, err := parseHead(l, lr.n)
		if err != nil {
			return nil, err
		}
		if i, _ := a.meta["_index"].(string); i != "" && b.firstIndex == "" {
			b.firstIndex = i
		}
		if err := a.readBody(lr); err != nil {
			return nil, err
		}
		b.actions = append(b.actions, a)
	}
	if err := lr.sc.Err(); err != nil {
		return nil, err
	}
	if len(b.actions) == 0 {
		return nil, errors.New("no actions")
	}
	return b, nil
}

// lineReader reads a _bulk body's non-blank lines, counting every line for
// the errors' line numbers.
type lineReader struct {
	sc *bufio.Scanner
	n  int // the line last read, from 1
}

// newLineReader returns a reader of body's lines, each up to MaxBody bytes.
func newLineReader(body []byte) *lineReader {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, MaxBody)
	return &lineReader{sc: sc}
}

// next returns the next non-blank line, trimmed; false at the end (or
// on a read error, which sc.Err then holds).
func (lr *lineReader) next() ([]byte, bool) {
	for lr.sc.Scan() {
		lr.n++
		if l := bytes.TrimSpace(lr.sc.Bytes()); len(l) > 0 {
			return l, true
		}
	}
	return nil, false
}

// parseHead reads action line l (line number line): its kind, metadata
// and _id.
func parseHead(l []byte, line int) (action, error) {
	var head map[string]map[string]any
	if err := json.Unmarshal(l, &head); err != nil || len(head) != 1 {
		return action{}, fmt.Errorf("line %d: want an action object such as {\"index\": {\"_id\": \"1\"}}", line)
	}
	var a action
	for k, v := range head {
		a.kind, a.meta = k, v
	}
	a.id, _ = a.meta["_id"].(string)
	return a, nil
}

// readBody checks the action against its kind and reads the line that
// follows it for an index or create (the document) and an update (its
// body, kept raw).
func (a *action) readBody(lr *lineReader) error {
	switch a.kind {
	case "index", "create":
		if a.id == "" {
			return fmt.Errorf("line %d: a document needs an _id for near-duplicate detection", lr.n)
		}
		src, ok := lr.next()
		if !ok {
			return fmt.Errorf("line %d: %s action without its document", lr.n, a.kind)
		}
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&a.source); err != nil || a.source == nil {
			return fmt.Errorf("line %d: the document is not a JSON object", lr.n)
		}
	case "update":
		src, ok := lr.next()
		if !ok {
			return fmt.Errorf("line %d: update action without its body", lr.n)
		}
		a.raw = bytes.Clone(src)
	case "delete":
		if a.id == "" {
			return fmt.Errorf("line %d: delete without an _id", lr.n)
		}
	default:
		return fmt.Errorf("line %d: unknown action %q", lr.n, a.kind)
	}
	return nil
}

// writes returns the bulk's writes for the service: indexed documents
// and deletions (updates of other fields pass by).
func (b *bulk) writes(o Options) []placer.Write {
	var out []placer.Write
	for _, a := range b.actions {
		switch a.kind {
		case "index", "create":
			out = append(out, placer.Write{Doc: client.Document{ID: a.id, Text: placer.Text(a.source[o.Text]), Title: placer.Text(a.source[o.Title]),
				URL: placer.Text(a.source[o.URL]), Date: placer.Text(a.source[o.Date])}})
		case "delete":
			out = append(out, placer.Write{Delete: true, Doc: client.Document{ID: a.id}})
		}
	}
	return out
}

// addFields sets the near-duplicate fields of every document indexed to
// its place after the bulk, and returns the ids indexed or deleted.
func (b *bulk) addFields(places map[string]placer.Place) map[string]bool {
	done := map[string]bool{}
	for _, a := range b.actions {
		switch a.kind {
		case "index", "create":
			for k, v := range places[a.id].Fields() {
				a.source[k] = v
			}
			done[a.id] = true
		case "delete":
			done[a.id] = true
		}
	}
	// A document indexed and then deleted in the bulk is gone.
	for id, pl := range places {
		if pl.Gone {
			done[id] = true
		}
	}
	return done
}

// encode writes the bulk as NDJSON.
func (b *bulk) encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one line each, newline-terminated
	for _, a := range b.actions {
		enc.Encode(map[string]any{a.kind: a.meta})
		switch {
		case a.source != nil:
			enc.Encode(a.source)
		case a.raw != nil:
			buf.Write(a.raw)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}
