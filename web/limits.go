package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/doppel-search/doppel/web/limiter"
)

// limited runs h in a slot of the limiter, under Options.Timeout; when
// there is no slot it answers 429 (the client has its share running) or
// 503 (the server is full), with Retry-After, at once.
func (srv *Server) limited(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, err := srv.limiter.Acquire(r.Context(), srv.client(r))
		switch {
		case errors.Is(err, limiter.ErrClient):
			w.Header().Set("Retry-After", "1")
			srv.refuse(w, r, http.StatusTooManyRequests, "Too many requests at a time from your address: wait for the ones under way.")
			return
		case errors.Is(err, limiter.ErrBusy):
			w.Header().Set("Retry-After", "1")
			srv.refuse(w, r, http.StatusServiceUnavailable, "The search is busy: try again in a moment.")
			return
		case err != nil: // the client went away
			return
		}
		defer release()
		ctx, cancel := context.WithTimeout(r.Context(), srv.opts.Timeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	})
}

// refuse answers a request that is not worked on: JSON under /api/, an
// HTML page otherwise. The message must not echo the request.
func (srv *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/metrics" {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	srv.tmpl.ExecuteTemplate(w, "search.html", page{Title: "Doppel", User: who(r).name, Error: msg})
}

// tooLongParam returns the name and length of the first parameter value
// (or the path) longer than Options.MaxQueryBytes, if any.
func (srv *Server) tooLongParam(r *http.Request) (string, int) {
	max := srv.opts.MaxQueryBytes
	if len(r.URL.Path) > max {
		return "path", len(r.URL.Path)
	}
	if len(r.URL.RawQuery) <= max {
		return "", 0 // no value can be longer
	}
	for k, vs := range r.URL.Query() {
		if len(k) > max {
			return "parameter name", len(k)
		}
		for _, v := range vs {
			if len(v) > max {
				if k == "q" {
					return "query", len(v)
				}
				return "parameter " + k, len(v)
			}
		}
	}
	return "", 0
}

// HTTPOptions are the connection limits of the http.Server HTTPServer
// returns. The zero value means the defaults.
type HTTPOptions struct {
	// ReadHeaderTimeout is how long a connection may take to send a
	// request's line and headers (a new connection that sends nothing is
	// closed after it). Default 5s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout is how long a connection may take to send a whole
	// request. Default 10s.
	ReadTimeout time.Duration
	// WriteTimeout is how long a request may take from the end of its
	// headers to the end of the response: above Options.Timeout plus
	// limiter.Options.MaxWait, so that it only cuts off clients that do
	// not read. Default 30s.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection is kept between
	// requests. Default 30s.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's line and headers (the URL
	// included); a longer request gets 431. Default 32 KiB.
	MaxHeaderBytes int
}

// HTTPServer returns an http.Server for h with the limits of o; set its
// Addr, or call its Serve.
func HTTPServer(h http.Handler, o HTTPOptions) *http.Server {
	o.EnsureDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: o.ReadHeaderTimeout, ReadTimeout: o.ReadTimeout,
		WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout, MaxHeaderBytes: o.MaxHeaderBytes}
}

// EnsureDefaults sets every zero field to its default (each field's doc
// says which) and returns o.
func (o *HTTPOptions) EnsureDefaults() *HTTPOptions {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 5 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Second
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 32 << 10
	}
	return o
}
