package placer

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// An Engine is the search engine a recipe stands in front of: its base
// URL, the client that reaches it and a reverse proxy for the requests
// the recipe passes through unchanged.
type Engine struct {
	URL  *url.URL
	HC   *http.Client
	Pass *httputil.ReverseProxy
}

// NewEngine returns the engine at base (an http(s) URL), reached with hc
// (nil: http.DefaultClient); pkg names the recipe in the error.
func NewEngine(pkg, base string, hc *http.Client) (*Engine, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: %q is not an http(s) URL", pkg, base)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	pass := httputil.NewSingleHostReverseProxy(u)
	pass.Transport = hc.Transport
	return &Engine{URL: u, HC: hc, Pass: pass}, nil
}

// Post sends body to path (below the engine's base path) with query, as
// contentType, with the client's Authorization header auth if any.
func (e *Engine) Post(ctx context.Context, path, query, contentType, auth string, body []byte) (*http.Response, error) {
	u := *e.URL
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawQuery = query
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return e.HC.Do(req)
}

// Text returns a document field's value as text: a string, or the
// strings of an array joined by newlines; "" for anything else.
func Text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Defaults sets each field name left empty to its default.
func Defaults(fields map[*string]string) {
	for p, def := range fields {
		if *p == "" {
			*p = def
		}
	}
}
