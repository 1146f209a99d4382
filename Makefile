# The project's checks, tests, benchmarks and fuzzing. `make check test` is
# what CI runs (.ci/run); every target works on a fresh machine with Go.

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.6.1
GOCYCLO := github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0
FUZZTIME ?= 10s
BENCHTIME ?= 1x

.PHONY: check test test-long bench fuzz

# gofmt, go vet, staticcheck (checks in staticcheck.conf), and no function
# outside the tests above cyclomatic complexity 20.
check:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...
	go run $(GOCYCLO) -over 20 -ignore '_test.go' .

# The test suite: what the README's test command runs. A package's tests
# take 1-4 minutes on an idle 2-core machine; the timeout leaves room for a
# busy one (go test's default, 10 minutes a package, does not).
test:
	go test -timeout 30m ./...

# The packages whose tests scale (internal/testrig/long), run whole with
# the full number of cases: DOPPEL_LONG=1. CI runs it after make check test.
LONG_PKGS = $(shell grep -rl 'internal/testrig/long"' --include='*_test.go' . | xargs -n1 dirname | sort -u)
test-long:
	DOPPEL_LONG=1 go test -count=1 -timeout 60m $(LONG_PKGS)

# Every benchmark, once each by default (BENCHTIME=2s for figures).
bench:
	go test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

# Every fuzz target for FUZZTIME each (go test runs one at a time).
fuzz:
	@set -e; for t in $$(grep -rl '^func Fuzz' --include='*_test.go' . | sort); do \
		dir=$$(dirname $$t); \
		for f in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$t | cut -c6-); do \
			echo "== $$dir $$f"; go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done
