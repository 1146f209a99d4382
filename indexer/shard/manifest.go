package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
	"github.com/google/renameio/v2"
)

// ErrShardCount means an index was opened with another number of shards
// than it was created with. Documents are routed to a shard by their cluster
// and the number of shards, so another number would look for them on
// the wrong shards: rebuild the index instead.
var ErrShardCount = errors.New("shard: the index has another number of shards")

// ErrNotSharded means a directory holds no sharded index.
var ErrNotSharded = errors.New("shard: no sharded index")

// manifestFile is the manifest's name in a sharded index's directory.
const manifestFile = "shards.json"

// routing names the routing rule the manifest records.
const routing = "xxhash64(cluster) mod shards"

// A manifest says how a sharded index is laid out.
type manifest struct {
	Format  string `json:"format"`  // "doppel-shards"
	Version int    `json:"version"` // 1
	Shards  int    `json:"shards"`
	Routing string `json:"routing"`
}

const (
	manifestFormat  = "doppel-shards"
	manifestVersion = 1
)

// Route returns the shard, of shards, that holds the records of
// cluster: a stable hash of the cluster id (xxhash64), modulo the number
// of shards.
func Route(cluster string, shards int) int {
	return int(xxhash.Sum64String(cluster) % uint64(shards))
}

// shardDir is the directory of shard i in dir.
func shardDir(dir string, i int) string { return filepath.Join(dir, fmt.Sprintf("shard-%03d", i)) }

// IsSharded reports whether dir holds a sharded index (its manifest).
func IsSharded(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, manifestFile))
	return err == nil
}

// readManifest reads dir's manifest; ErrNotSharded if it has none.
func readManifest(dir string) (manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return manifest{}, fmt.Errorf("%w in %s", ErrNotSharded, dir)
	}
	if err != nil {
		return manifest{}, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return manifest{}, fmt.Errorf("shard: %s: %w", filepath.Join(dir, manifestFile), err)
	}
	switch {
	case m.Format != manifestFormat || m.Version != manifestVersion:
		return manifest{}, fmt.Errorf("shard: %s: format %q version %d, want %q version %d", filepath.Join(dir, manifestFile),
			m.Format, m.Version, manifestFormat, manifestVersion)
	case m.Routing != routing:
		return manifest{}, fmt.Errorf("shard: %s: routing %q, want %q", filepath.Join(dir, manifestFile), m.Routing, routing)
	case m.Shards < 1:
		return manifest{}, fmt.Errorf("shard: %s: %d shards", filepath.Join(dir, manifestFile), m.Shards)
	}
	return m, nil
}

// writeManifest writes dir's manifest for n shards, atomically.
func writeManifest(dir string, n int) error {
	data, err := json.MarshalIndent(manifest{Format: manifestFormat, Version: manifestVersion, Shards: n, Routing: routing}, "", "  ")
	if err != nil {
		return err
	}
	return renameio.WriteFile(filepath.Join(dir, manifestFile), append(data, '\n'), 0o644)
}

// identityKey is the bleve internal key under which a shard records
// which shard of how many it is.
var identityKey = []byte("doppel.shard")

// identity is what a shard records of itself: which shard of how many,
// and the policy its index was last written under (what a Server
// counts searchable documents by).
type identity struct {
	Shard  int    `json:"shard"`
	Of     int    `json:"of"`
	Policy string `json:"policy,omitempty"`
}
