package redissig

import (
	"context"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// AssignOnly makes the first step of a commit only, as a worker that dies
// before adding its document to the lists.
func (s *Signatures) AssignOnly(ctx context.Context, c *signatures.Commit) (uint32, uint64, error) {
	g, h, _, err := s.assign(ctx, c)
	return g, h, err
}
