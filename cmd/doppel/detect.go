package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/crawler/sharedcrawl"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/signatures/redissig"
	"github.com/doppel-search/doppel/detect"
	"github.com/doppel-search/doppel/detect/api"
)

// detectTokenEnv names the environment variable holding the secret a
// client of doppel detect must show when it listens off loopback.
const detectTokenEnv = "DOPPEL_DETECT_TOKEN"

// runDetect is `doppel detect`: the near-duplicate service for other
// engines (package detect).
func runDetect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("detect", flag.ContinueOnError)
	data := fs.String("data", "", "the service's data `directory`: the log of accepted documents, the detector's snapshot (required)")
	listen := fs.String("listen", "127.0.0.1:9300", "listen `address`; off loopback the clients must send the token of "+detectTokenEnv)
	redisAddrs := fs.String("redis", "", "keep the detector's signatures on this Redis Cluster, comma-separated `addresses`, shared with the other services and crawl workers on it (new documents only: updates and removals are refused)")
	name := fs.String("crawl", "doppel", "the `name` whose signatures to share on --redis: a crawl's name shares that crawl's detector")
	similarity := fs.String("similarity", "resemblance", "the detector's similarity: resemblance (of word 5-shingles) or cosine (of word sets); every sharer of --redis uses the same")
	every := fs.Int("snapshot-every", 50_000, "changes between the detector's snapshots: a restart applies at most this many again")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doppel detect --data DIR [--listen 127.0.0.1:9300] [--redis ADDRS [--crawl NAME]]\n\n"+
			"Serves near-duplicate detection to another search engine over HTTP/JSON, with the crawl's detector:\n"+
			"  POST   /v1/documents       {\"documents\": [{\"id\", \"text\", \"title\", \"url\", \"date\", \"lang\"}, …]}\n"+
			"  GET    /v1/documents/ID    a document's cluster, master and member count\n"+
			"  DELETE /v1/documents/ID    remove a document\n"+
			"  GET    /v1/stats\n"+
			"Each answer gives the cluster, master and members of the document and the changes to apply to the\n"+
			"other documents (demoted, promoted, re-pointed, moved). A request is at most %d MiB and %d documents.\n"+
			"Kept in --data, synced before it is answered: a restart (even after kill -9) answers as before.\n\nFlags:\n",
			api.MaxBodyBytes>>20, api.MaxBatch)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(stderr, "doppel detect: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	sim, err := dedup.ParseSimilarity(*similarity)
	if err != nil {
		fmt.Fprintln(stderr, "doppel detect:", err)
		usageHint(fs, stderr)
		return errUsage
	}
	token := os.Getenv(detectTokenEnv)
	if token == "" && !isLoopback(*listen) {
		return fmt.Errorf("--listen %s is not a loopback address: set %s, and send it as \"Authorization: Bearer TOKEN\"", *listen, detectTokenEnv)
	}
	opts := detect.Options{Similarity: sim, SnapshotEvery: *every}
	if *redisAddrs != "" {
		rdb, sh, err := openDetectRedis(ctx, *redisAddrs, *name, sim)
		if err != nil {
			return err
		}
		defer rdb.Close()
		opts.Shared = sh
	}
	s, err := detect.Open(*data, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	st := s.Stats()
	fmt.Fprintf(stdout, "Near-duplicate service: http://%s/  (%d documents; Ctrl-C stops)\n", ln.Addr(), st.Documents)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	hs := &http.Server{Handler: requireToken(s.Handler(log), token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// openDetectRedis opens the detector signatures of name on the Redis
// Cluster at addrs, as a crawl of that name does (sharedcrawl).
func openDetectRedis(ctx context.Context, addrs, name string, sim dedup.Similarity) (*redis.ClusterClient, *redissig.Signatures, error) {
	if err := sharedcrawl.CheckName(name); err != nil {
		return nil, nil, err
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: splitList(addrs)})
	ping, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := rdb.Ping(ping).Err()
	cancel()
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("cannot reach the Redis Cluster at %s: %w", addrs, err)
	}
	o := dedup.Web()
	o.Similarity = sim
	cfg := o.SharedConfig()
	sh, err := redissig.Open(ctx, rdb, cfg.Limits, redissig.Options{Prefix: name + ":sig", HammingK: cfg.HammingK, Context: ctx})
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("the detector's signatures on %s: %w", addrs, err)
	}
	return rdb, sh, nil
}
