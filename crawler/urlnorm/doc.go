// Package urlnorm turns URLs into the canonical strings the crawler uses as
// frontier keys, and into path templates that name near-duplicate families.
//
// Contract: [Normalize] accepts only absolute http and https URLs and is
// idempotent: Normalize(Normalize(x)) == Normalize(x) for every x it
// accepts. Two URLs that differ only in letter case of the scheme or host, a
// fragment, a default port, "." or ".." path segments, the order of query
// parameters, the encoding of query parameters, or configured tracking and
// session parameters normalize to the same string. Nothing is fetched and no
// DNS is consulted. [Template] maps a URL to its family key (host and path
// with digit-bearing segments and query values replaced by "{n}").
//
// The package is pure: every function is safe for concurrent use.
package urlnorm
