// Package solrupdate is a pass-through proxy for Solr's JSON update
// handler that does what an update processor would: it adds
// near-duplicate fields to every document added — dup_cluster,
// dup_master, dup_canonical, from the near-duplicate service (doppel
// detect) — and, when an add or delete changes other documents' places
// (a master handed over, members re-pointed), sends atomic updates
// ("set") of those fields for them, so that a search can collapse on
// dup_cluster (the Collapsing query parser) and filter on dup_canonical.
// Every other request passes through unchanged.
//
// It was tested against a stand-in that speaks the small subset of the
// /update JSON API it uses (an array of documents, add and delete
// commands, atomic "set" updates), not against a real Solr.
package solrupdate

import (
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

// MaxBody bounds an update request's body: 100 MiB.
const MaxBody = 100 << 20

// Options name the fields of the documents the service reads. The zero
// value reads "id", "content", "title", "url" and "date".
type Options struct {
	ID, Text, Title, URL, Date string
}

// A Proxy is an http.Handler in front of Solr.
type Proxy struct {
	engine *placer.Engine
	detect *client.Client
	opts   Options
}

// New returns a proxy in front of the Solr at solr (such as
// "http://127.0.0.1:8983"), asking the service detect, sending its own
// requests with hc (nil: http.DefaultClient).
func New(solr string, detect *client.Client, hc *http.Client, opts Options) (*Proxy, error) {
	e, err := placer.NewEngine("solrupdate", solr, hc)
	if err != nil {
		return nil, err
	}
	placer.Defaults(map[*string]string{&opts.ID: "id", &opts.Text: "content", &opts.Title: "title", &opts.URL: "url", &opts.Date: "date"})
	return &Proxy{engine: e, detect: detect, opts: opts}, nil
}

// ServeHTTP handles POST …/update and …/update/json with a JSON body and
// passes everything else through.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	isUpdate := strings.HasSuffix(path, "/update") || strings.HasSuffix(path, "/update/json")
	if !isUpdate || r.Method != http.MethodPost || !strings.Contains(r.Header.Get("Content-Type"), "json") {
		p.engine.Pass.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		fail(w, http.StatusBadRequest, fmt.Sprintf("reading the body: %v", err))
		return
	}
	u, err := parse(body, p.opts.ID)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	places, err := placer.Apply(r.Context(), p.detect, u.writes(p.opts))
	var ce *client.Error
	switch {
	case errors.As(err, &ce) && ce.Status == http.StatusBadRequest:
		fail(w, http.StatusBadRequest, "the near-duplicate service refused the documents: "+ce.Reason)
		return
	case err != nil:
		fail(w, http.StatusBadGateway, "the near-duplicate service: "+err.Error())
		return
	}
	done := u.addFields(places)
	resp, err := p.send(r.Context(), path, r.URL.RawQuery, r.Header.Get("Authorization"), u.encode())
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
		if err := p.update(r.Context(), path, r.URL.RawQuery, r.Header.Get("Authorization"), places, done); err != nil {
			fail(w, http.StatusBadGateway, "the update was applied; the atomic updates of the documents it changed failed: "+err.Error())
			return
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// update sends atomic updates of the near-duplicate fields of every
// document in places but those the request added or deleted. A
// document deleted from Solr without the proxy would be created again
// with only these fields: delete through the proxy.
func (p *Proxy) update(ctx context.Context, path, query, auth string, places map[string]placer.Place, done map[string]bool) error {
	var docs []map[string]any
	for id, pl := range places {
		if pl.Gone || done[id] {
			continue
		}
		doc := map[string]any{p.opts.ID: id}
		for k, v := range pl.Fields() {
			doc[k] = map[string]any{"set": v}
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil
	}
	raw, err := json.Marshal(docs)
	if err != nil {
		return err
	}
	resp, err := p.send(ctx, path, query, auth, raw)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("status %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// send posts a JSON body to Solr's path.
func (p *Proxy) send(ctx context.Context, path, query, auth string, body []byte) (*http.Response, error) {
	return p.engine.Post(ctx, path, query, "application/json", auth, body)
}

// fail answers as Solr does, with an error object.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"msg": "solrupdate: " + msg, "code": status}})
}

// An update is a parsed update body: an array of documents, or the
// commands of an object in order (a key may repeat, as "add" does).
type update struct {
	idField  string // the unique key
	array    bool
	docs     []map[string]any // the array's documents
	commands []command
}

// A command is one key of an update object.
type command struct {
	key    string
	add    map[string]any // "add": its object, whose "doc" is doc
	doc    map[string]any
	delete []string        // "delete" by id
	raw    json.RawMessage // any other command, passed on
}

// parse reads an update body; idField is the unique key's field.
func parse(body []byte, idField string) (*update, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New("want a JSON array of documents or an object of commands")
	}
	u := &update{idField: idField}
	switch tok {
	case json.Delim('['):
		u.array = true
		for dec.More() {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil || doc == nil {
				return nil, fmt.Errorf("document %d is not a JSON object", len(u.docs))
			}
			if id(doc, idField) == "" {
				return nil, fmt.Errorf("document %d has no %q: the near-duplicate service needs an id", len(u.docs), idField)
			}
			u.docs = append(u.docs, doc)
		}
	case json.Delim('{'):
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, errors.New("bad JSON in the commands")
			}
			c := command{key: k.(string)}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("bad JSON in command %q", c.key)
			}
			if err := c.read(raw, idField); err != nil {
				return nil, err
			}
			u.commands = append(u.commands, c)
		}
	default:
		return nil, errors.New("want a JSON array of documents or an object of commands")
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("bad JSON: the body ends early")
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return u, nil
}

// read fills c from its value raw.
func (c *command) read(raw json.RawMessage, idField string) error {
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		return d.Decode(v)
	}
	switch c.key {
	case "add":
		if err := dec(&c.add); err != nil || c.add == nil {
			return errors.New(`"add" wants an object {"doc": {…}}`)
		}
		c.doc, _ = c.add["doc"].(map[string]any)
		if c.doc == nil || id(c.doc, idField) == "" {
			return fmt.Errorf(`"add" wants a "doc" with its %q`, idField)
		}
	case "delete":
		var v any
		if err := dec(&v); err != nil {
			return errors.New(`bad "delete"`)
		}
		switch v := v.(type) {
		case string:
			c.delete = []string{v}
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return errors.New(`"delete" wants ids`)
				}
				c.delete = append(c.delete, s)
			}
		case map[string]any:
			s, ok := v["id"].(string)
			if !ok {
				return errors.New(`"delete" by query is not supported through the near-duplicate proxy: delete by id`)
			}
			c.delete = []string{s}
		default:
			return errors.New(`"delete" wants an id, ids or {"id": …}`)
		}
	default:
		c.raw = raw
	}
	return nil
}

// writes returns the update's writes for the service, in order.
func (u *update) writes(o Options) []placer.Write {
	doc := func(d map[string]any) placer.Write {
		return placer.Write{Doc: client.Document{ID: id(d, o.ID), Text: placer.Text(d[o.Text]), Title: placer.Text(d[o.Title]), URL: placer.Text(d[o.URL]), Date: placer.Text(d[o.Date])}}
	}
	var out []placer.Write
	for _, d := range u.docs {
		out = append(out, doc(d))
	}
	for _, c := range u.commands {
		if c.doc != nil {
			out = append(out, doc(c.doc))
		}
		for _, id := range c.delete {
			out = append(out, placer.Write{Delete: true, Doc: client.Document{ID: id}})
		}
	}
	return out
}

// addFields sets the fields of every document added to its place after
// the update and returns the ids added or deleted.
func (u *update) addFields(places map[string]placer.Place) map[string]bool {
	done := map[string]bool{}
	set := func(d map[string]any) {
		id := id(d, u.idField)
		for k, v := range places[id].Fields() {
			d[k] = v
		}
		done[id] = true
	}
	for _, d := range u.docs {
		set(d)
	}
	for _, c := range u.commands {
		if c.doc != nil {
			set(c.doc)
		}
		for _, id := range c.delete {
			done[id] = true
		}
	}
	for id, pl := range places {
		if pl.Gone {
			done[id] = true
		}
	}
	return done
}

// encode writes the update as JSON, in the form it came in.
func (u *update) encode() []byte {
	if u.array {
		raw, _ := json.Marshal(u.docs)
		return raw
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range u.commands {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c.key)
		b.Write(k)
		b.WriteByte(':')
		var v []byte
		switch {
		case c.add != nil:
			v, _ = json.Marshal(c.add)
		case c.delete != nil:
			v, _ = json.Marshal(c.delete)
		default:
			v = c.raw
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// id returns the document's unique key, field, as a string ("" if
// none).
func id(d map[string]any, field string) string {
	switch v := d[field].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}
