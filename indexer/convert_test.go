package indexer

import "github.com/doppel-search/doppel/dedup"

// The tests drive the index with a real detector's decisions; package
// hook makes the same conversions for the crawler (hook.Placement,
// hook.IndexChange), which these tests cannot import.

func pl(r dedup.Result) Placement {
	return Placement{ID: r.ID, Cluster: string(r.Cluster), Master: r.Master, Duplicate: r.Duplicate, Edited: r.Edited, Simhash: r.Simhash}
}

func chg(ch dedup.Change) Change {
	out := Change{ID: ch.ID, Cluster: string(ch.Cluster), Master: ch.Master, Elected: ch.Elected, Left: ch.Left, Placement: pl(ch.Result)}
	for _, r := range ch.Moved {
		out.Moved = append(out.Moved, pl(r))
	}
	return out
}
