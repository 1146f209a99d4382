// Package client is the Go client of the near-duplicate service
// (doppel detect, package detect): it sends documents in batches and
// returns each one's cluster, master, member count and the changes to
// apply to an external index. It imports only the messages (detect/api)
// and the standard library.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/doppel-search/doppel/detect/api"
)

// The messages, as the service writes them.
type (
	// Document is a document to place (api.Document).
	Document = api.Document
	// Answer is where a document is after a request (api.Answer).
	Answer = api.Answer
	// Change is another document a request moved or re-pointed (api.Change).
	Change = api.Change
	// Stats counts what the service holds (api.Stats).
	Stats = api.Stats
)

// ErrNotFound is returned by Get and Delete for an id the service does
// not hold.
var ErrNotFound = errors.New("client: no such document")

// An Error is an answer of the service other than 200: its status and
// the reason it gave.
type Error struct {
	Status int
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("detect: %d %s: %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// A Client talks to one service. Its zero value is not usable: use New.
type Client struct {
	base string
	hc   *http.Client
}

// New returns a client of the service at base (such as
// "http://127.0.0.1:9300"), sending its requests with hc (nil:
// http.DefaultClient).
func New(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http(s) URL", base)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimSuffix(base, "/"), hc: hc}, nil
}

// Put places docs (at most api.MaxBatch; Put splits a larger slice into
// requests of that many) and returns one Answer per document, in order.
func (c *Client) Put(ctx context.Context, docs []Document) ([]Answer, error) {
	out := make([]Answer, 0, len(docs))
	for len(docs) > 0 {
		n := min(len(docs), api.MaxBatch)
		var res api.Results
		if err := c.do(ctx, http.MethodPost, "/v1/documents", api.Batch{Documents: docs[:n]}, &res); err != nil {
			return out, err
		}
		if len(res.Results) != n {
			return out, fmt.Errorf("client: %d answers for %d documents", len(res.Results), n)
		}
		out = append(out, res.Results...)
		docs = docs[n:]
	}
	return out, nil
}

// Get returns where the document id is, or ErrNotFound.
func (c *Client) Get(ctx context.Context, id string) (Answer, error) {
	var a Answer
	err := c.do(ctx, http.MethodGet, "/v1/documents/"+url.PathEscape(id), nil, &a)
	return a, err
}

// Delete removes the document id and returns the changes to the others,
// or ErrNotFound.
func (c *Client) Delete(ctx context.Context, id string) (Answer, error) {
	var a Answer
	err := c.do(ctx, http.MethodDelete, "/v1/documents/"+url.PathEscape(id), nil, &a)
	return a, err
}

// Stats returns what the service holds.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := c.do(ctx, http.MethodGet, "/v1/stats", nil, &s)
	return s, err
}

// do sends a request with body (JSON; nil: none) and decodes the answer
// into out.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e api.Error
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		err := &Error{Status: resp.StatusCode, Reason: e.Error}
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: reading the answer: %w", err)
	}
	return nil
}
