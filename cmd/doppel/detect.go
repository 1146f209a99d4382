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
	"strings"
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

// detectSettings are doppel detect's settings: its flags and its
// configuration file (--config).
type detectSettings struct {
	Data   string   `json:"data" flag:"data" help:"the service's data {directory}: the log of accepted documents, the detector's snapshot (required)"`
	Listen string   `json:"listen" flag:"listen" help:"listen {address}; off loopback the clients must send the token of DOPPEL_DETECT_TOKEN"`
	Redis  []string `json:"redis" flag:"redis" sep:"," help:"keep the detector's signatures on this Redis Cluster, comma-separated {addresses}, shared with the other services and crawl workers on it (new documents only: updates and removals are refused)"`
	Crawl  string   `json:"crawl" flag:"crawl" help:"the {name} whose signatures to share on --redis: a crawl's name shares that crawl's detector"`
	detect.Options
}

// detectDefaults returns doppel detect's default settings.
func detectDefaults() detectSettings {
	return detectSettings{Listen: "127.0.0.1:9300", Crawl: "doppel", Options: detect.Options{SnapshotEvery: 50_000, MaxInflightBytes: detect.DefaultMaxInflightBytes}}
}

// runDetect is `doppel detect`: the near-duplicate service for other
// engines (package detect).
func runDetect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("detect", flag.ContinueOnError)
	c := defineConfig(fs, detectDefaults(), true)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doppel detect --data DIR [--listen 127.0.0.1:9300] [--redis ADDRS [--crawl NAME]] [--config FILE]\n\n"+
			"Serves near-duplicate detection to another search engine over HTTP/JSON, with the crawl's detector:\n"+
			"  POST   /v1/documents       {\"documents\": [{\"id\", \"text\", \"title\", \"url\", \"date\", \"lang\"}, …]}\n"+
			"  GET    /v1/documents/ID    a document's cluster, master and member count\n"+
			"  DELETE /v1/documents/ID    remove a document\n"+
			"  GET    /v1/stats\n"+
			"Each answer gives the cluster, master and members of the document and the changes to apply to the\n"+
			"other documents (demoted, promoted, re-pointed, moved). A request is at most %d MiB and %d documents.\n"+
			"Kept in --data, synced before it is answered: a restart (even after kill -9) answers as before.\n"+
			"Every flag is also a setting of the configuration file (--config), which --print-config prints;\n"+
			"the token ("+detectTokenEnv+") is only ever read from the environment.\n\nFlags:\n",
			api.MaxBodyBytes>>20, api.MaxBatch)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	if c.print {
		return writeSettings(stdout, s)
	}
	if s.Data == "" {
		fmt.Fprintln(stderr, "doppel detect: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	return serveDetect(ctx, s, stdout, stderr)
}

// serveDetect serves the near-duplicate service with settings s until
// ctx is done.
func serveDetect(ctx context.Context, s detectSettings, stdout, stderr io.Writer) error {
	token := os.Getenv(detectTokenEnv)
	if token == "" && !isLoopback(s.Listen) {
		return fmt.Errorf("--listen %s is not a loopback address: set %s, and send it as \"Authorization: Bearer TOKEN\"", s.Listen, detectTokenEnv)
	}
	opts := s.Options
	if len(s.Redis) > 0 {
		rdb, sh, err := openDetectRedis(ctx, s.Redis, s.Crawl, s.Similarity)
		if err != nil {
			return err
		}
		defer rdb.Close()
		opts.Shared = sh
	}
	svc, err := detect.Open(s.Data, opts)
	if err != nil {
		return err
	}
	defer svc.Close()
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.Listen, err)
	}
	st := svc.Stats()
	fmt.Fprintf(stdout, "Near-duplicate service: http://%s/  (%d documents; Ctrl-C stops)\n", ln.Addr(), st.Documents)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	hs := detectServer(requireToken(svc.Handler(log), token), defaultDetectLimits)
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
func openDetectRedis(ctx context.Context, addrs []string, name string, sim dedup.Similarity) (*redis.ClusterClient, *redissig.Signatures, error) {
	if err := sharedcrawl.CheckName(name); err != nil {
		return nil, nil, err
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	ping, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := rdb.Ping(ping).Err()
	cancel()
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("cannot reach the Redis Cluster at %s: %w", strings.Join(addrs, ","), err)
	}
	o := dedup.Web()
	o.Similarity = sim
	cfg := o.SharedConfig()
	sh, err := redissig.Open(ctx, rdb, cfg.Limits, redissig.Options{Prefix: name + ":sig", HammingK: cfg.HammingK, Context: ctx})
	if err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("the detector's signatures on %s: %w", strings.Join(addrs, ","), err)
	}
	return rdb, sh, nil
}

// detectLimits are the connection limits of doppel detect's server
// (detectServer).
type detectLimits struct {
	Header time.Duration // to send a request's line and headers
	Read   time.Duration // to send a whole request, its body included
	Idle   time.Duration // between requests on a kept-alive connection
}

// defaultDetectLimits are doppel detect's: 10 s for a request's headers,
// 60 s to read the whole request (a body of api.MaxBodyBytes needs
// 560 KB/s) and 120 s idle between requests.
var defaultDetectLimits = detectLimits{Header: 10 * time.Second, Read: 60 * time.Second, Idle: 120 * time.Second}

// detectServer returns the HTTP server of doppel detect over h, bounding
// what a slow or idle client holds by l, and a request's headers to 64
// KiB. The answer has no deadline: placing a large batch on a busy
// machine may take longer than any fixed one, and the answer is small.
func detectServer(h http.Handler, l detectLimits) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: l.Header, ReadTimeout: l.Read,
		IdleTimeout: l.Idle, MaxHeaderBytes: 64 << 10}
}
