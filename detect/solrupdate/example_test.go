package solrupdate_test

import (
	"log"
	"net/http"

	"github.com/doppel-search/doppel/detect/client"
	"github.com/doppel-search/doppel/detect/solrupdate"
)

// Put the proxy in front of Solr and post your JSON updates to it
// instead: documents are added with dup_cluster, dup_master and
// dup_canonical, read from their "text_t" field here.
func Example() {
	detect, err := client.New("http://127.0.0.1:9300", nil) // doppel detect --data DIR --listen 127.0.0.1:9300
	if err != nil {
		log.Fatal(err)
	}
	proxy, err := solrupdate.New("http://127.0.0.1:8983", detect, nil, solrupdate.Options{Text: "text_t"})
	if err != nil {
		log.Fatal(err)
	}
	go http.ListenAndServe("127.0.0.1:8984", proxy) // POST …/solr/CORE/update to :8984; query :8983 as before
}
