// Package urlnorm turns URLs into the canonical strings the crawler uses as
// frontier keys, and into path templates that name near-duplicate families.
//
// Contract: [Normalize] accepts only absolute http and https URLs and is
// idempotent: Normalize(Normalize(x)) == Normalize(x) for every x it
// accepts. Two URLs that differ only in letter case of the scheme or host, a
// fragment, a default port, "." or ".." path segments, the order of query
// parameters, the encoding of unreserved characters and spaces in query
// parameters, configured tracking and session parameters, or session ids
// recognised by their shape normalize to the same string. Reserved
// characters in a query (";", ",", "/", ":" …) keep the form they were
// linked with (RFC 3986 §6.2.2): the URL requested is the one linked. Nothing is fetched and no
// DNS is consulted. [Template] maps a URL to its family key (host and path
// with digit-bearing segments and query values replaced by "{n}").
//
// The package is pure: every function is safe for concurrent use.
package urlnorm
