package web

import (
	_ "embed"
	"encoding/xml"
	"net/http"
)

// suggestJS completes the search box as people type (static/suggest.js).
//
//go:embed static/suggest.js
var suggestJS []byte

// pageJS localises the result page's dates and works its "copy path"
// buttons (static/page.js).
//
//go:embed static/page.js
var pageJS []byte

// suggestScript serves suggest.js.
func suggestScript(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(suggestJS)
}

// pageScript serves page.js.
func pageScript(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(pageJS)
}

// openSearch is an OpenSearch 1.1 description document: the browser's
// search box and other clients learn from it how to search this server.
type openSearch struct {
	XMLName       xml.Name        `xml:"http://a9.com/-/spec/opensearch/1.1/ OpenSearchDescription"`
	ShortName     string          `xml:"ShortName"`
	Description   string          `xml:"Description"`
	InputEncoding string          `xml:"InputEncoding"`
	URLs          []openSearchURL `xml:"Url"`
}

type openSearchURL struct {
	Type     string `xml:"type,attr"`
	Method   string `xml:"method,attr"`
	Template string `xml:"template,attr"`
}

// openSearchPage serves /opensearch.xml, with templates on the host the
// request came to (the base people reach the server at).
func (srv *Server) openSearchPage(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	d := openSearch{ShortName: "Doppel", Description: "Search the intranet, one result per page and its copies", InputEncoding: "UTF-8",
		URLs: []openSearchURL{
			{Type: "text/html", Method: "get", Template: base + "/?q={searchTerms}"},
			{Type: "application/json", Method: "get", Template: base + "/api/search?q={searchTerms}"},
		}}
	w.Header().Set("Content-Type", "application/opensearchdescription+xml; charset=utf-8")
	w.Write([]byte(xml.Header))
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	enc.Encode(d)
}
