package web

import (
	"encoding/xml"
	"net/http"
)

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
