package esbulk_test

import (
	"log"
	"net/http"

	"github.com/doppel-search/doppel/detect/client"
	"github.com/doppel-search/doppel/detect/esbulk"
)

// Put the proxy in front of Elasticsearch (or OpenSearch) and send your
// _bulk requests to it instead: documents are indexed with dup_cluster,
// dup_master and dup_canonical, read from their "body" field here.
func Example() {
	detect, err := client.New("http://127.0.0.1:9300", nil) // doppel detect --data DIR --listen 127.0.0.1:9300
	if err != nil {
		log.Fatal(err)
	}
	proxy, err := esbulk.New("http://127.0.0.1:9200", detect, nil, esbulk.Options{Text: "body", Index: "pages"})
	if err != nil {
		log.Fatal(err)
	}
	go http.ListenAndServe("127.0.0.1:9201", proxy) // index through :9201; search :9200 as before
}
