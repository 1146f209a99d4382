package web

import (
	"net/http"

	"github.com/doppel-search/doppel/crawler/report"
)

// duplicatesPage shows the crawl's duplicates report (Options.Duplicates)
// to administrators: an HTML page, or with format=csv or format=json the
// report as `doppel report` prints it.
func (srv *Server) duplicatesPage(w http.ResponseWriter, r *http.Request) {
	if srv.opts.Duplicates == nil {
		srv.refuse(w, r, http.StatusNotFound, "This server has no crawl records to report duplicates from.")
		return
	}
	write := map[string]struct {
		ctype string
		write func(*report.Report, http.ResponseWriter) error
	}{
		"csv":  {"text/csv; charset=utf-8", func(rep *report.Report, w http.ResponseWriter) error { return rep.WriteCSV(w) }},
		"json": {"application/json; charset=utf-8", func(rep *report.Report, w http.ResponseWriter) error { return rep.WriteJSON(w) }},
	}
	format := r.URL.Query().Get("format")
	out, ok := write[format]
	if !ok && format != "" && format != "html" {
		srv.refuse(w, r, http.StatusBadRequest, "format: want html, csv or json.")
		return
	}
	rep, err := srv.opts.Duplicates()
	if err != nil {
		srv.opts.Logger.Error("duplicates report", "err", err)
		srv.refuse(w, r, http.StatusInternalServerError, "The crawl's records could not be read: see the server's log.")
		return
	}
	if !ok {
		srv.render(w, r, http.StatusOK, "duplicates.html", page{Title: "Duplicates", Data: rep})
		return
	}
	w.Header().Set("Content-Type", out.ctype)
	if err := out.write(rep, w); err != nil {
		srv.opts.Logger.Error("duplicates report", "err", err)
	}
}
