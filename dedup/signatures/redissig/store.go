package redissig

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
)

// Store is the candidate lists of a [Signatures] as a signatures.Store:
// each list a string on the master of its key's shard, each Add and
// Remove one script there, Lookup one pipelined round trip. It is safe
// for concurrent use, each method atomic. Its methods return no errors:
// the first one is kept for [Store.Err], and a method called after it
// returns a zero value.
//
// Cost: one round trip a call (Stats one for every shard); a list of n
// entries is 5 + 8n bytes (beside Redis's own, about 70 bytes a key).
type Store struct {
	s *Signatures

	mu  sync.Mutex
	err error
}

var _ signatures.Store = (*Store)(nil)

// Store returns the lists of s as a signatures.Store.
func (s *Signatures) Store() *Store { return &Store{s: s} }

// Err returns the first error of a call, if any.
func (st *Store) Err() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// failed records err; it reports whether there was an error, now or
// before.
func (st *Store) failed(err error) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err == nil && err != nil {
		st.err = fmt.Errorf("redissig: %w", err)
	}
	return st.err != nil
}

// Limits returns the limits the store was opened with.
func (st *Store) Limits() signatures.Limits { return st.s.lim }

// Add appends e to the list of k within the limits.
func (st *Store) Add(k signatures.Key, e signatures.Entry) signatures.Outcome {
	if st.failed(nil) {
		return 0
	}
	out, err := st.s.eval(st.s.opts.Context, listsScript, st.s.addKeys(k), st.s.addArgs(k, e, 0)...)
	if st.failed(err) {
		return 0
	}
	return signatures.Outcome(out.(int64))
}

// addKeys returns the keys of an add to the list of k: the list and its
// shard's counters.
func (s *Signatures) addKeys(k signatures.Key) []string {
	lk := s.listKey(k)
	return []string{lk, countersKey(lk)}
}

// addArgs returns the arguments of lists.lua's add of e to the list of k
// under the commit guard seq (0: none).
func (s *Signatures) addArgs(k signatures.Key, e signatures.Entry, seq uint32) []any {
	return []any{"add", int(k.Kind), entryBytes(e), s.lim.PerGroup, s.lim.MaxLen, seq}
}

// entryBytes encodes an entry as the lists hold it.
func entryBytes(e signatures.Entry) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(make([]byte, 0, 8), e.ID), e.Group)
}

// decodeList decodes a list's value (missing: "" with ok false).
func decodeList(v string, ok bool) signatures.List {
	if !ok || len(v) < 5 {
		return signatures.List{}
	}
	if v[0] == 'S' {
		return signatures.List{Stopped: true}
	}
	b := []byte(v[5:])
	list := make([]signatures.Entry, len(b)/8)
	for i := range list {
		list[i] = signatures.Entry{ID: binary.LittleEndian.Uint32(b[8*i:]), Group: binary.LittleEndian.Uint32(b[8*i+4:])}
	}
	return signatures.List{Entries: list}
}

// stringResult returns the value of a GET and whether the key exists.
func stringResult(c *redis.StringCmd) (string, bool) {
	v, err := c.Result()
	return v, err == nil
}

// Get returns the list of k.
func (st *Store) Get(k signatures.Key) []signatures.Entry {
	var list []signatures.Entry
	st.Lookup([]signatures.Key{k}, func(_ signatures.Key, l []signatures.Entry) { list = l })
	return list
}

// Lookup calls fn with the list of each key, in order, read in one
// pipelined round trip.
func (st *Store) Lookup(keys []signatures.Key, fn func(k signatures.Key, list []signatures.Entry)) {
	if len(keys) == 0 || st.failed(nil) {
		return
	}
	lists, err := st.s.lists(st.s.opts.Context, keys)
	if st.failed(err) {
		return
	}
	for i, k := range keys {
		fn(k, lists[i].Entries)
	}
}

// lists reads the lists of keys in one round trip.
func (s *Signatures) lists(ctx context.Context, keys []signatures.Key) ([]signatures.List, error) {
	cmds := make([]*redis.StringCmd, len(keys))
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i, k := range keys {
			cmds[i] = p.Get(ctx, s.listKey(k))
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]signatures.List, len(keys))
	for i, c := range cmds {
		out[i] = decodeList(stringResult(c))
	}
	return out, nil
}

// Known reports whether k has a list or is a stop key.
func (st *Store) Known(k signatures.Key) bool {
	if st.failed(nil) {
		return false
	}
	n, err := st.s.rdb.Exists(st.s.opts.Context, st.s.listKey(k)).Result()
	st.failed(err)
	return n > 0
}

// Remove takes document id out of the list of k (see signatures.Store).
func (st *Store) Remove(k signatures.Key, id uint32) (removed, refill bool) {
	if st.failed(nil) {
		return false, false
	}
	out, err := st.s.eval(st.s.opts.Context, listsScript, st.s.addKeys(k), "remove", int(k.Kind), id, st.s.lim.PerGroup)
	if st.failed(err) {
		return false, false
	}
	r := out.([]any)
	return r[0].(int64) == 1, r[1].(int64) == 1
}

// Stats returns the counters of kind, summed over the shards.
func (st *Store) Stats(kind signatures.Kind) signatures.Stats {
	if st.failed(nil) {
		return signatures.Stats{}
	}
	s, err := st.s.Stats(st.s.opts.Context, kind)
	st.failed(err)
	return s
}

// counterNames are the counters of a kind, in the order of the fields of
// signatures.Stats.
var counterNames = []string{"keys", "entries", "stops", "capped", "ignored", "removed"}

// Stats returns the counters of the lists of one kind, summed over the
// shards (one round trip).
func (s *Signatures) Stats(ctx context.Context, kind signatures.Kind) (signatures.Stats, error) {
	fields := make([]string, len(counterNames))
	for i, n := range counterNames {
		fields[i] = strconv.Itoa(int(kind)) + ":" + n
	}
	cmds := make([]*redis.SliceCmd, s.opts.Shards)
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i := range cmds {
			cmds[i] = p.HMGet(ctx, s.tag(uint64(i))+":st", fields...)
		}
	})
	if err != nil {
		return signatures.Stats{}, err
	}
	var sum [6]int
	for _, c := range cmds {
		for j, v := range c.Val() {
			if str, ok := v.(string); ok {
				n, _ := strconv.Atoi(str)
				sum[j] += n
			}
		}
	}
	return signatures.Stats{Keys: sum[0], Entries: sum[1], Stops: sum[2], Capped: sum[3], Ignored: sum[4], Removed: sum[5]}, nil
}

// Reset forgets every key of the given kinds and their counters: a scan
// of every master, O(keys).
func (st *Store) Reset(kinds ...signatures.Kind) {
	if len(kinds) == 0 || st.failed(nil) {
		return
	}
	s, ctx := st.s, st.s.opts.Context
	err := s.forEachMaster(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		for _, k := range kinds {
			if err := deleteMatching(ctx, c, "{"+s.opts.Prefix+"/*}:"+strconv.Itoa(int(k))+":*"); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		var fields []string
		for _, k := range kinds {
			for _, n := range counterNames {
				fields = append(fields, strconv.Itoa(int(k))+":"+n)
			}
		}
		err = s.pipe(ctx, func(p redis.Pipeliner) {
			for i := range s.opts.Shards {
				p.HDel(ctx, s.tag(uint64(i))+":st", fields...)
			}
		})
	}
	st.failed(err)
}
