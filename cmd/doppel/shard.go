package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/doppel-search/doppel/indexer/shard"
)

// shardSettings are doppel shard's flags.
type shardSettings struct {
	Index string `json:"index" flag:"index" help:"the shard's {directory} (shard-002 of a sharded index, or a copy of it)"`
	Data  string `json:"data" flag:"data" help:"a crawl's data {directory} whose index is sharded (with --shard)"`
	Shard int    `json:"shard" flag:"shard" help:"which {shard} of --data's index to serve, from 0"`
	Addr  string `json:"addr" flag:"addr" help:"listen {address}"`
}

// runShard serves one shard of a sharded index to the process that
// searches it (doppel serve --shards).
func runShard(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	c := defineConfig(fs, shardSettings{Shard: -1, Addr: "127.0.0.1:9100"}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel shard --index SHARD_DIR [--addr 127.0.0.1:9100]\n"+
			"       doppel shard --data DIR --shard N [--addr 127.0.0.1:9100]\n\n"+
			"Serves one shard of a sharded index (doppel crawl --shards N) over HTTP, read-only, to the process\n"+
			"that searches every shard as one index: doppel serve --shards URL0,URL1,… (shard 0 first). It\n"+
			"answers for every document — access groups are applied by doppel serve — so off loopback it\n"+
			"needs a shared secret in the environment of both: "+shardTokenEnv+" (only requests carrying it\n"+
			"are answered).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	switch {
	case s.Index != "" && s.Data == "" && s.Shard < 0:
	case s.Index == "" && s.Data != "" && s.Shard >= 0:
		s.Index = filepath.Join(s.Data, "index", fmt.Sprintf("shard-%03d", s.Shard))
	default:
		fmt.Fprintln(stderr, "doppel shard: give --index, or --data and --shard")
		usageHint(fs, stderr)
		return errUsage
	}
	token := os.Getenv(shardTokenEnv)
	if token == "" && !isLoopback(s.Addr) {
		return fmt.Errorf("--addr %s is not a loopback address: set %s, the same in doppel serve's environment, so that only it can read the shard", s.Addr, shardTokenEnv)
	}
	ix, err := shard.OpenShard(s.Index)
	if err != nil {
		return err
	}
	defer ix.Close()
	srv, err := shard.NewServer(ix)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.Addr, err)
	}
	k, of := srv.Shard()
	fmt.Fprintf(stdout, "Shard %d of %d: http://%s/  (Ctrl-C stops)\n", k, of, ln.Addr())
	hs := &http.Server{Handler: requireToken(srv, token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// shardTokenEnv names the environment variable holding the secret that
// doppel serve shows doppel shard (never a flag: flags are seen by
// every user of the machine, and never logged).
const shardTokenEnv = "DOPPEL_SHARD_TOKEN"

// requireToken answers only requests bearing token (Authorization:
// Bearer); an empty token lets every request through.
func requireToken(h http.Handler, token string) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "doppel shard: this shard needs the token doppel serve holds", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// bearer is a RoundTripper adding the shard token to each request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// shardClient returns the client doppel serve reads remote shards with:
// bearing the token of the environment, if any (nil: the default).
func shardClient() *http.Client {
	token := os.Getenv(shardTokenEnv)
	if token == "" {
		return nil
	}
	return &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
}
