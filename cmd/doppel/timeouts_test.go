package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/detect"
	"github.com/doppel-search/doppel/web"
)

// TestSlowClientsClosed: the servers of doppel serve (web.HTTPServer) and
// doppel detect (detectServer), with their limits shortened to a fraction
// of a second, close every connection that holds them without finishing
// a request — one that sends nothing, headers a byte at a time, a POST's
// headers and then nothing, a body a byte at a time, a kept-alive
// connection left idle — within its limit (and a slack for a loaded
// machine), and answer a new client meanwhile. For detect, a POST that
// was left without its body gives its turn back: after the slow ones are
// closed, POSTs are placed again. The limits as shipped are checked
// beside (10 s / 60 s / 120 s for detect, 5 s / 10 s / 30 s for serve).
func TestSlowClientsClosed(t *testing.T) {
	if def := detectServer(nil, defaultDetectLimits); def.ReadHeaderTimeout != 10*time.Second || def.ReadTimeout != 60*time.Second ||
		def.IdleTimeout != 120*time.Second || def.MaxHeaderBytes != 64<<10 {
		t.Errorf("doppel detect's server limits: %+v", def)
	}
	if def := web.HTTPServer(nil, web.HTTPOptions{}); def.ReadHeaderTimeout != 5*time.Second || def.ReadTimeout != 10*time.Second ||
		def.IdleTimeout != 30*time.Second {
		t.Errorf("doppel serve's server limits: %+v", def)
	}
	const header, read, idle = 400 * time.Millisecond, 1200 * time.Millisecond, 600 * time.Millisecond
	svc, err := detect.Open(t.TempDir(), detect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	servers := map[string]*http.Server{
		"detect": detectServer(svc.Handler(slog.New(slog.DiscardHandler)), detectLimits{Header: header, Read: read, Idle: idle}),
		"serve": web.HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // as a handler reading a body does
		}), web.HTTPOptions{ReadHeaderTimeout: header, ReadTimeout: read, IdleTimeout: idle}),
	}
	post := "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	cases := []struct {
		name  string
		send  func(c net.Conn) // what the client sends before it falls silent or trickles
		trick string           // then sent a byte every 100 ms
		limit time.Duration
	}{
		{"nothing sent", func(net.Conn) {}, "", header},
		{"headers a byte at a time", func(net.Conn) {}, post, header},
		{"a POST's headers, then nothing", func(c net.Conn) { io.WriteString(c, post) }, "", read},
		{"a body a byte at a time", func(c net.Conn) { io.WriteString(c, post) }, strings.Repeat(`{"documents":[`, 100), read},
		{"kept alive, idle", func(c net.Conn) {
			io.WriteString(c, "GET /v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
			}
		}, "", idle},
	}
	for name, hs := range servers {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go hs.Serve(ln)
			defer hs.Close()
			addr := ln.Addr().String()
			var conns []net.Conn
			opened := time.Now()
			for range detect.MaxBodies() + 1 { // more slow POSTs than detect places at once
				conns = append(conns, slowClient(t, addr, cases[2].send, ""))
			}
			t.Run("clients", func(t *testing.T) { // returns when its parallel cases are done
				for _, tc := range cases {
					t.Run(tc.name, func(t *testing.T) {
						t.Parallel()
						start := time.Now()
						c := slowClient(t, addr, tc.send, tc.trick)
						waitClosed(t, c, start, tc.limit)
					})
				}
				t.Run("a new client meanwhile", func(t *testing.T) {
					t.Parallel()
					resp, err := http.Get("http://" + addr + "/v1/stats")
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Errorf("GET /v1/stats: %s", resp.Status)
					}
				})
			})
			for _, c := range conns {
				waitClosed(t, c, opened, read)
			}
			if name == "detect" { // the slow POSTs gave their turns back
				resp, err := http.Post("http://"+addr+"/v1/documents", "application/json", strings.NewReader(`{"documents":[{"id":"a","text":"placed after the slow clients"}]}`))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("a POST after the slow clients were closed: %s; want 200", resp.Status)
				}
			}
		})
	}
}

// slowClient connects to addr, sends what send does, then trickle a byte
// every 100 ms (on its own goroutine, until the connection fails).
func slowClient(t *testing.T, addr string, send func(net.Conn), trickle string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	send(c)
	if trickle != "" {
		go func() {
			for i := range len(trickle) {
				if _, err := c.Write([]byte{trickle[i]}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	return c
}

// slack is what a loaded machine may add to a limit before a connection
// is seen closed: generous, as this checks that a limit closes the
// connection at all (without one it stays open), not how fast; a busy
// machine may hold the server's goroutines back for seconds.
const slack = 30 * time.Second

// waitClosed reads c until the server closes it (EOF or a reset) and
// fails the test if that takes more than limit and slack after start.
func waitClosed(t *testing.T, c net.Conn, start time.Time, limit time.Duration) {
	t.Helper()
	c.SetReadDeadline(start.Add(limit + slack))
	_, err := io.Copy(io.Discard, c)
	took := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("the connection is still open after %v; want it closed after %v", took.Round(time.Millisecond), limit)
		return
	}
	t.Logf("closed after %v (limit %v)", took.Round(time.Millisecond), limit)
	if took < limit-limit/4 {
		t.Errorf("closed after %v, before its limit of %v: %v", took, limit, fmt.Sprint(err))
	}
}
