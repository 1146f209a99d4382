package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/internal/demosite"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web"
)

// demoQueries are the example searches the demo prints, collapsed.
var demoQueries = []string{"vpn", "printer", "cafeteria", "maintenance window"}

// demoAdminGroups are the access groups of the demo's admin user, who may
// see every page.
var demoAdminGroups = []string{"hr", "admin"}

// demoSettings are doppel demo's flags.
type demoSettings struct {
	Data     string `json:"data" flag:"data" help:"keep the crawl in this {directory}, new, empty or an earlier demo's (default: a temporary one, removed at exit)"`
	Addr     string `json:"addr" flag:"addr" help:"serve the search UI on this {address} (another free port if it is taken)"`
	SiteOnly string `json:"site_only" flag:"site-only" help:"only serve the demo intranet, on this loopback {address}, until Ctrl-C: a site for doppel crawl or doppel worker"`
}

// runDemo serves the bundled demo intranet on 127.0.0.1, crawls it into a
// data directory, and prints the clusters and collapsed example queries.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	flags := defineConfig(fs, demoSettings{Addr: "127.0.0.1:8080"}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel demo [--data DIR] [--addr 127.0.0.1:8080]\n"+
			"       doppel demo --site-only 127.0.0.1:8000\n\n"+
			"Serves the bundled demo intranet on 127.0.0.1, crawls, deduplicates and indexes it, prints its\n"+
			"near-duplicate clusters and a few collapsed example queries, then serves the search UI until\n"+
			"Ctrl-C. Demo users: guest (public pages), hr-staff (also the HR pages under /hr/) and admin\n"+
			"(everything, and the status page).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := flags.load(stderr)
	if err != nil {
		return err
	}
	if s.SiteOnly != "" {
		return serveDemoSite(ctx, s.SiteOnly, stdout)
	}
	dir, cleanup, err := demoDir(s.Data)
	if err != nil {
		return err
	}
	defer cleanup()

	site, stopSite, err := startDemoSite()
	if err != nil {
		return err
	}
	defer stopSite()
	fmt.Fprintf(stdout, "Demo intranet: %s (%d pages, plus crawler traps)\n", site, len(demosite.Pages()))
	if s.Data == "" {
		fmt.Fprintf(stdout, "Data directory: %s (temporary, removed at exit; --data DIR keeps the crawl)\n\n", dir)
	} else {
		fmt.Fprintf(stdout, "Data directory: %s\n\n", dir)
	}

	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{site + "/"}, Delay: -1,
		Groups: []crawler.GroupRule{{Prefix: site + "/hr/", Groups: []string{"hr"}}}})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := crawlAndReport(ctx, c, dir, false, false, stdout, stderr); err != nil {
		return demoCrawlError(err)
	}
	path := func(u string) string { return strings.TrimPrefix(u, site) }
	printDemoClusters(stdout, c.Detector().Clusters(), path)
	if err := printDemoQueries(ctx, stdout, ranking.New(c.Store(), ranking.Options{}), path); err != nil {
		return err
	}
	if s.Data != "" {
		fmt.Fprintf(stdout, "\nThe crawl is kept in %s: try doppel export --data %s, or doppel serve --data %s\n", dir, dir, dir)
	}
	fmt.Fprintln(stdout, "\nDemo users: guest sees public pages; hr-staff also sees the HR pages under /hr/; admin sees everything and the status page.")
	return serveDemo(ctx, c.View(), s.Addr, stdout, stderr)
}

// demoDir returns the demo's data directory — data, prepared for a fresh
// crawl, or a new temporary directory if data is empty — and the function
// that removes it if temporary.
func demoDir(data string) (dir string, cleanup func(), err error) {
	if data == "" {
		tmp, err := os.MkdirTemp("", "doppel-demo-")
		if err != nil {
			return "", nil, err
		}
		return tmp, func() { os.RemoveAll(tmp) }, nil
	}
	if err := prepareDemoDir(data); err != nil {
		return "", nil, err
	}
	return data, func() {}, nil
}

// startDemoSite serves the demo intranet on a free loopback port and
// returns its base URL and the function that stops it.
func startDemoSite() (site string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("starting the demo intranet: %w", err)
	}
	srv := &http.Server{Handler: demosite.Handler()}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// serveDemoSite serves the demo intranet alone on the loopback address
// addr until ctx is done.
func serveDemoSite(ctx context.Context, addr string, stdout io.Writer) error {
	if !isLoopback(addr) {
		return fmt.Errorf("--site-only %s: give a loopback address such as 127.0.0.1:8000", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("starting the demo intranet: %w", err)
	}
	srv := &http.Server{Handler: demosite.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "Demo intranet: http://%s/ (%d pages, plus crawler traps; the HR pages are under /hr/); Ctrl-C stops\n", ln.Addr(), len(demosite.Pages()))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		srv.Close()
		<-served
		return nil
	case err := <-served:
		return err
	}
}

// demoCrawlError is the demo's error for a failed crawl: an interrupted
// crawl is not resumable, as the demo crawls afresh each time.
func demoCrawlError(err error) error {
	if errors.Is(err, errInterrupted) {
		return errors.New("interrupted")
	}
	return err
}

// printDemoClusters prints the clusters with two or more members, by
// master URL: the master, then the other members, as paths.
func printDemoClusters(stdout io.Writer, clusters []cluster.Cluster, path func(string) string) {
	fmt.Fprintln(stdout, "\nNear-duplicate clusters (master, then members):")
	slices.SortFunc(clusters, func(a, b cluster.Cluster) int { return strings.Compare(a.Master.URL, b.Master.URL) })
	for _, cl := range clusters {
		if len(cl.Members) < 2 {
			continue
		}
		fmt.Fprintf(stdout, "  %s  (%d pages)\n", path(cl.Master.URL), len(cl.Members))
		var members []string
		for _, m := range cl.Members {
			if m.ID != cl.Master.ID {
				members = append(members, path(m.URL))
			}
		}
		slices.Sort(members)
		for _, m := range members {
			fmt.Fprintf(stdout, "      %s\n", m)
		}
	}
}

// printDemoQueries prints the results of the example queries, run as the
// UI runs them (package ranking), for the demo's admin, who may see every
// page.
func printDemoQueries(ctx context.Context, stdout io.Writer, search *ranking.Searcher, path func(string) string) error {
	fmt.Fprintln(stdout, "\nExample queries, one result per cluster (as admin):")
	for _, q := range demoQueries {
		res, err := search.Search(ctx, ranking.Request{Query: q, Size: 3, Groups: demoAdminGroups})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %q: %d results\n", q, res.Total)
		for _, h := range res.Hits {
			line := fmt.Sprintf("    %s — %s", path(h.URL), h.Title)
			if h.Similar > 0 {
				similar, err := demoSimilar(ctx, search, h, q, path)
				if err != nil {
					return err
				}
				line += similar
			}
			fmt.Fprintln(stdout, line)
		}
	}
	return nil
}

// demoSimilar returns the note on hit h of query q that lists up to three
// of the other members of its cluster, as paths.
func demoSimilar(ctx context.Context, search *ranking.Searcher, h ranking.Hit, q string, path func(string) string) (string, error) {
	members, err := search.Members(ctx, h.Cluster, demoAdminGroups, ranking.ByRelevance, q)
	if err != nil {
		return "", err
	}
	var others []string
	for _, m := range members {
		if m.ID != h.ID {
			others = append(others, path(m.URL))
		}
	}
	slices.Sort(others)
	if len(others) > 3 {
		others = append(others[:3], "…")
	}
	return fmt.Sprintf("  [%d similar pages: %s]", h.Similar, strings.Join(others, ", ")), nil
}

// serveDemo serves the search UI over v on addr, with the demo users, or
// on another free port if addr is the default and taken.
func serveDemo(ctx context.Context, v *crawler.View, addr string, stdout, stderr io.Writer) error {
	id := identity{web: web.Options{DemoUsers: []web.DemoUser{{Name: "guest"}, {Name: "hr-staff", Groups: []string{"hr"}},
		{Name: "admin", Groups: demoAdminGroups}}, AdminGroups: []string{"admin"}}}
	err := serve(ctx, v, v.Store(), nil, addr, id, stdout, stderr)
	if err != nil && addr == "127.0.0.1:8080" && isAddrInUse(err) {
		err = serve(ctx, v, v.Store(), nil, "127.0.0.1:0", id, stdout, stderr)
	}
	return err
}

// demoMarker marks a data directory as the demo's, which a later demo may
// replace: the demo site's port changes between runs, so every demo
// crawls afresh.
const demoMarker = ".doppel-demo"

// prepareDemoDir empties dir for a fresh demo crawl. It refuses a
// directory that is neither empty nor an earlier demo's, so that --data
// pointing at a real crawl or anything else never deletes it.
func prepareDemoDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
			return fmt.Errorf("--data %s is not empty and holds no earlier demo crawl; give a new or empty directory", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, demoMarker), []byte("a doppel demo crawl; the next doppel demo --data here replaces it\n"), 0o644)
}

// isAddrInUse reports whether err is an "address already in use" error.
func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
