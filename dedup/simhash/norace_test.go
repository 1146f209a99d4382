//go:build !race

package simhash

const raceEnabled = false
