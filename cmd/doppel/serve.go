package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

// runServe serves the search UI and API over a crawl's data directory.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	data := fs.String("data", "", "the crawl's data `directory` (required)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	header := fs.String("groups-header", "", "trusted request `header` with the user's access groups, comma-separated, set by your reverse proxy")
	demoUsers := fs.String("demo-users", "", "selectable demo users, e.g. \"guest=;alice=hr,it\" (ignored with --groups-header)")
	admins := fs.String("admin-groups", "", "comma-separated `groups` that may see the status page and /api/stats (default: everybody)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel serve --data DIR [--addr 127.0.0.1:8080] [--groups-header H | --demo-users SPEC]\n\n"+
			"Serves the search UI and JSON API over a crawl. Without --groups-header or --demo-users every\n"+
			"visitor is anonymous and sees public documents only.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(stderr, "doppel serve: --data is required")
		fs.Usage()
		return errUsage
	}
	users, err := parseDemoUsers(*demoUsers)
	if err != nil {
		return err
	}
	c, err := crawler.Open(*data, crawler.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	var adminGroups []string
	for _, g := range strings.Split(*admins, ",") {
		if g = strings.TrimSpace(g); g != "" {
			adminGroups = append(adminGroups, g)
		}
	}
	return serve(ctx, c, *addr, web.Options{GroupsHeader: *header, DemoUsers: users, AdminGroups: adminGroups}, stdout)
}

// parseDemoUsers parses "name=group,group;name=…".
func parseDemoUsers(spec string) ([]web.DemoUser, error) {
	var users []web.DemoUser
	for _, part := range strings.Split(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, groups, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("--demo-users: %q is not name=group,group", part)
		}
		u := web.DemoUser{Name: name}
		for _, g := range strings.Split(groups, ",") {
			if g = strings.TrimSpace(g); g != "" {
				u.Groups = append(u.Groups, g)
			}
		}
		users = append(users, u)
	}
	return users, nil
}

// serve runs the web server over the crawl until ctx is done.
func serve(ctx context.Context, c *crawler.Crawler, addr string, opts web.Options, stdout io.Writer) error {
	opts.Text = c.Text
	opts.Status = cachedStatus(c, 5*time.Second)
	srv, err := web.New(ranking.New(c.Index(), ranking.Options{}), opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "Search UI: http://%s/  (JSON API under /api/, metrics at /metrics; Ctrl-C stops)\n", ln.Addr())
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

// cachedStatus computes the status page's numbers at most once per ttl.
func cachedStatus(c *crawler.Crawler, ttl time.Duration) func() web.Status {
	var mu sync.Mutex
	var last web.Status
	var at time.Time
	return func() web.Status {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < ttl {
			return last
		}
		st := c.Stats()
		ds := c.Detector().Stats()
		sizes, hamming, _ := c.Distributions()
		last = web.Status{Documents: int(st.Fetched), Clusters: ds.Clusters, Duplicates: int(st.Duplicates),
			Queued: st.Queued, Errors: int(st.Errors), ClusterSizes: sizes, Hamming: hamming}
		req := bleve.NewSearchRequestOptions(c.Index().Searchable(bleve.NewMatchAllQuery()), 0, 0, false)
		if res, err := c.Index().Bleve().Search(req); err == nil {
			last.Searchable = int(res.Total)
		}
		if n, err := c.Index().Indexed(); err == nil {
			last.Skipped = int(st.Fetched) - n
		}
		at = time.Now()
		return last
	}
}
