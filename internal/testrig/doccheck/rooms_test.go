package doccheck

import (
	"slices"
	"strings"
	"testing"
)

// redisRoom are the packages that may link a Redis client: the stores of
// a crawl shared on a Redis Cluster, what opens them, the test rig that
// starts a cluster, and the command. Every other package works without
// one (docs/architecture.md, "Rooms").
var redisRoom = []string{
	"cmd/doppel",
	"crawler/fleet/redisfleet",
	"crawler/frontier/redisfrontier",
	"crawler/pagelog",
	"crawler/sharedcrawl",
	"dedup/signatures/redissig",
	"internal/redisx",
	"internal/testrig/redistest",
}

// redisClient is the Redis client's import path.
const redisClient = "github.com/redis/go-redis/v9"

// TestRooms checks the rules of docs/architecture.md's "Rooms": only the
// Redis room links a Redis client; only web's own packages and the
// command import web; the test rigs are imported by tests and
// conformance suites only; and internal/'s leaves import nothing of
// Doppel's but other leaves.
func TestRooms(t *testing.T) {
	ps := list(t, root(t))
	links := map[string]bool{} // packages that link the Redis client
	for _, p := range ps {
		links[short(p.ImportPath)] = slices.Contains(p.Deps, redisClient)
	}
	for _, p := range ps {
		name := short(p.ImportPath)
		own := ownImports(p)
		if links[name] && !slices.Contains(redisRoom, name) {
			var through []string
			for _, imp := range own {
				if links[imp] {
					through = append(through, imp)
				}
			}
			t.Errorf("%s links a Redis client but is not in the Redis room (through %v)", name, through)
		}
		for _, imp := range own {
			if violation := roomRule(name, imp); violation != "" {
				t.Errorf("%s imports %s: %s", name, imp, violation)
			}
		}
	}
}

// roomRule returns which rule an import of imp by the package name
// breaks, or "".
func roomRule(name, imp string) string {
	rig := func(p string) bool { return strings.HasPrefix(p, "internal/testrig/") }
	leaf := func(p string) bool { return strings.HasPrefix(p, "internal/") && !rig(p) }
	switch {
	case (imp == "web" || strings.HasPrefix(imp, "web/")) && name != "web" && !strings.HasPrefix(name, "web/") && name != "cmd/doppel":
		return "only web's packages and the command may import web"
	case rig(imp) && !rig(name) && !strings.HasSuffix(name, "test"):
		return "only tests, test rigs and conformance suites may import a test rig"
	case leaf(name) && !leaf(imp):
		return "a leaf of internal/ imports only other leaves"
	}
	return ""
}

// ownImports returns p's direct imports of the module's own packages, as
// short names them.
func ownImports(p pkg) []string {
	var out []string
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, module+"/") {
			out = append(out, short(imp))
		}
	}
	return out
}

// TestRoomRule checks the rules themselves on imports they allow and
// refuse, so that a rule that can never fire is noticed.
func TestRoomRule(t *testing.T) {
	for _, c := range []struct {
		name, imp string
		broken    bool
	}{
		{"crawler", "web", true},
		{"ranking", "web/limiter", true},
		{"web/e2e", "web", false},
		{"cmd/doppel", "web/crawlstatus", false},
		{"crawler", "internal/testrig/authtest", true},
		{"crawler/frontier/frontiertest", "internal/testrig/storetest", false},
		{"internal/testrig/findcheck", "internal/testrig/docsite", false},
		{"internal/lang", "internal/tokens", false},
		{"internal/lang", "crawler", true},
		{"internal/jsonl", "internal/testrig/golden", true},
	} {
		if got := roomRule(c.name, c.imp) != ""; got != c.broken {
			t.Errorf("%s importing %s: broken %v, want %v", c.name, c.imp, got, c.broken)
		}
	}
}
