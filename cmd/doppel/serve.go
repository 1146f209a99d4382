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

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

// runServe serves the search UI and API over a crawl's data directory.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	data := fs.String("data", "", "the crawl's data `directory` (required)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	identity := identityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel serve --data DIR [--addr 127.0.0.1:8080] [--groups-header H | --demo-users SPEC]\n\n"+
			"Serves the search UI and JSON API over a crawl, read-only: it opens the crawl's records and index\n"+
			"without rebuilding anything, so it answers at once. A crawl running in another process holds the\n"+
			"data directory; search it with doppel crawl --serve instead. Without --groups-header or\n"+
			"--demo-users every visitor is anonymous and sees public documents only.\n\nFlags:")
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
	opts, err := identity()
	if err != nil {
		return err
	}
	v, err := crawler.OpenView(*data)
	if err != nil {
		return err
	}
	defer v.Close()
	return serve(ctx, v, *addr, opts, stdout)
}

// identityFlags defines the flags that say who a visitor is and returns a
// function that reads them, after parsing, into web.Options.
func identityFlags(fs *flag.FlagSet) func() (web.Options, error) {
	header := fs.String("groups-header", "", "trusted request `header` with the user's access groups, comma-separated, set by your reverse proxy")
	demoUsers := fs.String("demo-users", "", "selectable demo users, e.g. \"guest=;alice=hr,it\" (ignored with --groups-header)")
	admins := fs.String("admin-groups", "", "comma-separated `groups` that may see the status page and /api/stats (default: everybody)")
	return func() (web.Options, error) {
		users, err := parseDemoUsers(*demoUsers)
		if err != nil {
			return web.Options{}, err
		}
		var adminGroups []string
		for _, g := range strings.Split(*admins, ",") {
			if g = strings.TrimSpace(g); g != "" {
				adminGroups = append(adminGroups, g)
			}
		}
		return web.Options{GroupsHeader: *header, DemoUsers: users, AdminGroups: adminGroups}, nil
	}
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
func serve(ctx context.Context, v *crawler.View, addr string, opts web.Options, stdout io.Writer) error {
	ln, err := listen(v, addr, opts, stdout)
	if err != nil {
		return err
	}
	return ln.serve(ctx)
}

// A server is the search UI listening, not yet serving.
type server struct {
	hs *http.Server
	ln net.Listener
}

// listen binds addr and prepares the web server over the crawl.
func listen(v *crawler.View, addr string, opts web.Options, stdout io.Writer) (*server, error) {
	opts.Text = v.Text
	opts.Status = cachedStatus(v, 5*time.Second)
	srv, err := web.New(ranking.New(v.Index(), ranking.Options{}), opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	fmt.Fprintf(stdout, "Search UI: http://%s/  (JSON API under /api/, metrics at /metrics; Ctrl-C stops)\n", ln.Addr())
	return &server{hs: &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}, ln: ln}, nil
}

// serve serves until ctx is done, then shuts down gracefully.
func (s *server) serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.hs.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// cachedStatus computes the status page's numbers at most once per ttl.
func cachedStatus(v *crawler.View, ttl time.Duration) func() web.Status {
	var mu sync.Mutex
	var last web.Status
	var at time.Time
	return func() web.Status {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < ttl {
			return last
		}
		if s, err := v.Summary(); err == nil {
			last = web.Status{Documents: s.Fetched, Clusters: s.Clusters, Duplicates: s.Duplicates, Queued: s.Queued,
				Errors: s.Errors, Searchable: s.Searchable, Skipped: s.Fetched - s.Indexed,
				ClusterSizes: s.ClusterSizes, Hamming: s.Hamming}
		}
		at = time.Now()
		return last
	}
}
