// Package long scales the randomized and corpus tests: the default test
// run (make test, go test ./...) checks fewer cases, so that it stays
// within minutes on a busy machine, and DOPPEL_LONG=1 (make test-long,
// run by CI after the README's test command) checks the full number.
package long

import "os"

// Env is the environment variable that asks for the full number of
// cases: DOPPEL_LONG=1.
const Env = "DOPPEL_LONG"

// Enabled reports whether the full number of cases is asked for
// (DOPPEL_LONG=1).
func Enabled() bool { return os.Getenv(Env) == "1" }

// N returns short in the default test run and full with DOPPEL_LONG=1.
func N(short, full int) int {
	if Enabled() {
		return full
	}
	return short
}
