package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
	"github.com/doppel-search/doppel/web/worddiff"
)

// diffView is the what-differs page's data.
type diffView struct {
	Cluster        string // the cluster compared in
	Member, Master indexer.Member
	worddiff.Result
	TooLarge string // why the pages were not compared, if they were not
	// Contained is the larger document the member is a part of, if the
	// user may see it (Server.containedIn); nil if none.
	Contained *indexer.Member
}

// text returns a document's full text.
func (srv *Server) text(id string) (string, bool) {
	if srv.opts.Text != nil {
		return srv.opts.Text(id)
	}
	d, err := srv.s.Store().Document(id)
	if err != nil || d == nil {
		return "", false
	}
	return d.Body, true
}

// diff compares the member of the path with the master of the cluster of
// the "cluster" parameter — or, if the user may not see the master, the
// first member they may see: a user compares only what they may see.
func (srv *Server) diff(r *http.Request) (diffView, error) {
	id, cluster := r.PathValue("id"), r.URL.Query().Get("cluster")
	ms, err := srv.s.Members(r.Context(), cluster, who(r).groups, ranking.ByRelevance, "")
	if err != nil {
		return diffView{}, err
	}
	view := diffView{Cluster: cluster, Master: ms[0]}
	found := false
	for _, m := range ms {
		if m.ID == id {
			view.Member, found = m, true
		}
	}
	if !found {
		return diffView{}, fmt.Errorf("%w: %q in cluster %q", ranking.ErrNotFound, id, cluster)
	}
	if in, ok := srv.containedIn(r, id); ok {
		view.Contained = &in
	}
	// The members' lengths and dates tell a page's versions apart, so
	// that a recrawled page is compared afresh.
	key := fmt.Sprintf("%q %d %d|%q %d %d", view.Master.ID, view.Master.Length, view.Master.LastModified.Unix(),
		view.Member.ID, view.Member.Length, view.Member.LastModified.Unix())
	view.Result, err = srv.diffs.Diff(r.Context(), key, func() (string, string, error) {
		a, okA := srv.text(view.Master.ID)
		b, okB := srv.text(view.Member.ID)
		if !okA || !okB {
			return "", "", fmt.Errorf("%w: text of %q", ranking.ErrNotFound, id)
		}
		return a, b, nil
	})
	if errors.Is(err, worddiff.ErrTooLarge) {
		view.TooLarge, err = "These pages are too large, or differ in too many places, to compare quickly.", nil
	}
	return view, err
}

func (srv *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	view, err := srv.diff(r)
	p := page{Title: "What differs", Query: r.URL.Query().Get("q")}
	if err != nil {
		srv.pageError(w, r, "diff.html", p, err)
		return
	}
	p.Data = view
	srv.render(w, r, http.StatusOK, "diff.html", p)
}

func (srv *Server) apiDiff(w http.ResponseWriter, r *http.Request) {
	view, err := srv.diff(r)
	if err != nil {
		srv.apiError(w, err)
		return
	}
	out := map[string]any{"master": view.Master.ID, "member": view.Member.ID, "same": view.Same() && view.TooLarge == "",
		"removed": view.Removed, "added": view.Added, "edits": view.Edits}
	if view.Edits == nil {
		out["edits"] = []worddiff.Edit{}
	}
	if view.TooLarge != "" {
		out["too_large"] = true
	}
	writeJSON(w, http.StatusOK, out)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
