module github.com/doppel-search/doppel

go 1.26

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/kljensen/snowball v0.10.0
)

require github.com/google/renameio/v2 v2.0.2
