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

// runDemo serves the bundled demo intranet on 127.0.0.1, crawls it into a
// data directory, and prints the clusters and collapsed example queries.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	data := fs.String("data", "", "keep the crawl in this `directory`, new, empty or an earlier demo's (default: a temporary one, removed at exit)")
	addr := fs.String("addr", "127.0.0.1:8080", "serve the search UI on this `address` (another free port if it is taken)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel demo [--data DIR] [--addr 127.0.0.1:8080]\n\n"+
			"Serves the bundled demo intranet on 127.0.0.1, crawls, deduplicates and indexes it, prints its\n"+
			"near-duplicate clusters and a few collapsed example queries, then serves the search UI until\n"+
			"Ctrl-C. Demo users: guest (public pages), hr-staff (also the HR pages under /hr/) and admin\n"+
			"(everything, and the status page).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "doppel-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := prepareDemoDir(dir); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("starting the demo intranet: %w", err)
	}
	srv := &http.Server{Handler: demosite.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	site := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Demo intranet: %s (%d pages, plus crawler traps)\n", site, len(demosite.Pages()))
	if *data == "" {
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
	if err := crawlAndReport(ctx, c, dir, false, stdout, stderr); err != nil {
		if errors.Is(err, errInterrupted) {
			return errors.New("interrupted")
		}
		return err
	}
	path := func(u string) string { return strings.TrimPrefix(u, site) }

	fmt.Fprintln(stdout, "\nNear-duplicate clusters (master, then members):")
	clusters := c.Detector().Clusters()
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

	// The example queries run as the UI runs them (package ranking), for
	// the demo's admin, who may see every page.
	fmt.Fprintln(stdout, "\nExample queries, one result per cluster (as admin):")
	search := ranking.New(c.Index(), ranking.Options{})
	for _, q := range demoQueries {
		res, err := search.Search(ctx, ranking.Request{Query: q, Size: 3, Groups: demoAdminGroups})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %q: %d results\n", q, res.Total)
		for _, h := range res.Hits {
			line := fmt.Sprintf("    %s — %s", path(h.URL), h.Title)
			if h.Similar > 0 {
				members, err := search.Members(ctx, h.Cluster, demoAdminGroups, ranking.ByRelevance, q)
				if err != nil {
					return err
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
				line += fmt.Sprintf("  [%d similar pages: %s]", h.Similar, strings.Join(others, ", "))
			}
			fmt.Fprintln(stdout, line)
		}
	}
	if *data != "" {
		fmt.Fprintf(stdout, "\nThe crawl is kept in %s: try doppel export --data %s, or doppel serve --data %s\n", dir, dir, dir)
	}
	fmt.Fprintln(stdout, "\nDemo users: guest sees public pages; hr-staff also sees the HR pages under /hr/; admin sees everything and the status page.")
	id := identity{web: web.Options{DemoUsers: []web.DemoUser{{Name: "guest"}, {Name: "hr-staff", Groups: []string{"hr"}},
		{Name: "admin", Groups: demoAdminGroups}}, AdminGroups: []string{"admin"}}}
	err = serve(ctx, c.View(), *addr, id, stdout, stderr)
	if err != nil && *addr == "127.0.0.1:8080" && isAddrInUse(err) {
		err = serve(ctx, c.View(), "127.0.0.1:0", id, stdout, stderr)
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

func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
