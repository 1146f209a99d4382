package userquery_test

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/ranking/userquery"
)

func Example() {
	m := bleve.NewIndexMapping()
	ix, _ := bleve.NewMemOnly(m)
	ix.Index("args", map[string]string{"title": "Args in std::env - Rust", "body": "An iterator over the arguments of a process."})
	ix.Index("env", map[string]string{"title": "std::env - Rust", "body": "Inspection of the process's environment."})
	ix.Index("vpn", map[string]string{"title": "Connecting to the VPN", "body": "Install the VPN client."})

	p := userquery.New(userquery.Options{
		Fields: []userquery.Field{
			{Name: "title", Boost: 3},
			{Name: "body", Boost: 1},
		},
		Mapping: m,
	})
	for _, s := range []string{"std::env::Args", `title:vpn "vpn client`, "-rust", "(vpn OR"} {
		q := p.Parse(s)
		res, _ := ix.Search(bleve.NewSearchRequest(p.Build(q)))
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		fmt.Printf("%-22s %-24s %v\n", s, q, ids)
	}
	// Output:
	// std::env::Args         std::env::Args           [args]
	// title:vpn "vpn client  +title:vpn vpn client    [vpn]
	// -rust                  -rust                    [vpn]
	// (vpn OR                (vpn OR                  [vpn]
}
