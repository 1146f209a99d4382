package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/doppel-search/doppel/indexer/shard"
)

// runShard serves one shard of a sharded index to the process that
// searches it (doppel serve --shards).
func runShard(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	dir := fs.String("index", "", "the shard's `directory` (shard-002 of a sharded index, or a copy of it)")
	data := fs.String("data", "", "a crawl's data `directory` whose index is sharded (with --shard)")
	n := fs.Int("shard", -1, "which `shard` of --data's index to serve, from 0")
	addr := fs.String("addr", "127.0.0.1:9100", "listen `address`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel shard --index SHARD_DIR [--addr 127.0.0.1:9100]\n"+
			"       doppel shard --data DIR --shard N [--addr 127.0.0.1:9100]\n\n"+
			"Serves one shard of a sharded index (doppel crawl --shards N) over HTTP, read-only, to the process\n"+
			"that searches every shard as one index: doppel serve --shards URL0,URL1,… (shard 0 first). It\n"+
			"answers for every document whoever asks — access groups are applied by doppel serve — so keep it\n"+
			"on loopback or a private network.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	switch {
	case *dir != "" && *data == "" && *n < 0:
	case *dir == "" && *data != "" && *n >= 0:
		*dir = filepath.Join(*data, "index", fmt.Sprintf("shard-%03d", *n))
	default:
		fmt.Fprintln(stderr, "doppel shard: give --index, or --data and --shard")
		usageHint(fs, stderr)
		return errUsage
	}
	ix, err := shard.OpenShard(*dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	srv, err := shard.NewServer(ix)
	if err != nil {
		return err
	}
	if !isLoopback(*addr) {
		fmt.Fprintf(stderr, "warning: serving a shard on %s, not a loopback address: it answers for every document, whoever asks\n", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	k, of := srv.Shard()
	fmt.Fprintf(stdout, "Shard %d of %d: http://%s/  (Ctrl-C stops)\n", k, of, ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
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
