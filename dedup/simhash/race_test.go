//go:build race

package simhash

// raceEnabled reports a -race build, where sync.Pool drops items at random
// and allocation counts are meaningless.
const raceEnabled = true
