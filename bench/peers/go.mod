module github.com/doppel-search/doppel/bench/peers

go 1.26

require (
	github.com/dgryski/go-minhash v0.0.0-20170608043002-7fe510aff544
	github.com/ekzhu/minhash-lsh v0.0.0-20171225071031-5c06ee8586a1
	github.com/go-dedup/simhash v0.0.0-20170904020510-9ecaca7b509c
	github.com/mfonda/simhash v0.0.0-20151007195837-79f94a1100d6
)

require (
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33 // indirect
	github.com/dgryski/go-spooky v0.0.0-20170606183049-ed3d087f40e2 // indirect
	github.com/go-dedup/megophone v0.0.0-20170830025436-f01be21026f5 // indirect
	github.com/go-dedup/text v0.0.0-20170907015346-8bb1b95e3cb7 // indirect
	golang.org/x/text v0.41.0 // indirect
)
