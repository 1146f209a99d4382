package redissig

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/doppel-search/doppel/dedup/signatures"
	"github.com/doppel-search/doppel/internal/redisx"
)

// leaseMs returns the lease in milliseconds.
func (s *Signatures) leaseMs() int64 { return max(s.opts.Lease.Milliseconds(), 1) }

// takeApplied returns the logs known applied, as script arguments, and
// forgets them: the call they are passed to deletes them (giveBack if it
// fails).
func (s *Signatures) takeApplied() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]any, len(s.applied))
	for i, d := range s.applied {
		out[i] = d
	}
	s.applied = s.applied[:0]
	return out
}

// giveBack keeps logs known applied that a failed call did not delete.
func (s *Signatures) giveBack(logs []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range logs {
		s.applied = append(s.applied, d.(uint32))
	}
}

// A pending log is a commit of this Signatures not known applied.
type pending struct {
	doc, group uint32
	log        *logRecord
}

// pendingLogs returns the commits of this Signatures not known applied.
func (s *Signatures) pendingLogs() []pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mine)
}

// markApplied records logs known applied: they are no longer pending.
func (s *Signatures) markApplied(docs ...uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applied = append(s.applied, docs...)
	s.mine = slices.DeleteFunc(s.mine, func(p pending) bool { return slices.Contains(docs, p.doc) })
}

// applying adds to p what applies the pending logs ps.
func (s *Signatures) applying(ctx context.Context, p redis.Pipeliner, ps []pending) {
	for _, l := range ps {
		s.queueApply(ctx, p, l.doc, l.group, l.log)
	}
}

// docsOf returns the documents of ps.
func docsOf(ps []pending) []uint32 {
	out := make([]uint32, len(ps))
	for i, p := range ps {
		out[i] = p.doc
	}
	return out
}

// Flush applies the commits of s not known applied (the next turn's
// Read or Wait would) and deletes their logs: the lists are then complete
// for readers other than workers (Store).
func (s *Signatures) Flush(ctx context.Context) error {
	ps := s.pendingLogs()
	if len(ps) > 0 {
		if err := s.pipe(ctx, func(p redis.Pipeliner) { s.applying(ctx, p, ps) }); err != nil {
			return fmt.Errorf("redissig: flush: %w", err)
		}
		s.markApplied(docsOf(ps)...)
	}
	applied := s.takeApplied()
	if len(applied) == 0 {
		return nil
	}
	if _, err := s.cluster(ctx, append([]any{"forget"}, applied...)...); err != nil {
		s.giveBack(applied)
		return fmt.Errorf("redissig: flush: %w", err)
	}
	return nil
}

// Begin takes the next document number (see signatures.Shared).
func (s *Signatures) Begin(ctx context.Context) (doc uint32, settled bool, err error) {
	applied := s.takeApplied()
	v, err := s.cluster(ctx, append([]any{"begin", s.leaseMs()}, applied...)...)
	if err != nil {
		s.giveBack(applied)
		return 0, false, fmt.Errorf("redissig: begin: %w", err)
	}
	r, ok := v.([]any)
	if !ok || len(r) != 3 {
		return 0, false, fmt.Errorf("redissig: begin answered %v", v)
	}
	// Settled: at its turn, and every log left is one of this Signatures,
	// which its next Read applies before reading.
	settled = r[1].(int64) == 1
	mine := docsOf(s.pendingLogs())
	left, _ := r[2].([]any)
	for _, l := range left {
		d, err := strconv.ParseUint(fmt.Sprint(l), 10, 32)
		if err != nil || !slices.Contains(mine, uint32(d)) {
			settled = false
		}
	}
	return uint32(r[0].(int64)), settled, nil
}

// Abandon gives up doc; it returns signatures.ErrLost if doc was no
// longer leased (given up already, its lease run out, or committed).
func (s *Signatures) Abandon(ctx context.Context, doc uint32) error {
	v, err := s.cluster(ctx, "abandon", doc)
	if err != nil {
		return fmt.Errorf("redissig: abandon: %w", err)
	}
	if held, _ := v.(int64); held == 0 {
		return fmt.Errorf("redissig: abandon %d: %w", doc, signatures.ErrLost)
	}
	return nil
}

// Outcomes reports what became of the document numbers from, …,
// from+count-1: turn is the first number neither committed nor given up
// (every number below it is one or the other, for good), committed[i]
// whether from+i is committed, and hashes[i] the id bits of its cluster
// if it is (0 if not: the cluster id dedup gives them is "c" and their 16
// hex digits). A number at or above turn that is not committed is still
// pending: its worker may commit it yet. Like a waiting worker's poll,
// Outcomes first gives up the numbers at the turn (up to from+count-1)
// whose lease ran out, so that the turn moves on when every worker behind
// a dead one has died too. One script call.
func (s *Signatures) Outcomes(ctx context.Context, from uint32, count int) (turn uint32, committed []bool, hashes []uint64, err error) {
	if count <= 0 {
		return 0, nil, nil, fmt.Errorf("redissig: outcomes of %d numbers", count)
	}
	v, err := s.cluster(ctx, "outcomes", from, count)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("redissig: outcomes: %w", err)
	}
	ans, ok := v.([]any)
	if !ok || len(ans) != 3 {
		return 0, nil, nil, fmt.Errorf("redissig: outcomes answered %v", v)
	}
	t, _ := ans[0].(int64)
	of, _ := ans[1].(string)
	hs, _ := ans[2].(string)
	committed, hashes = make([]bool, count), make([]uint64, count)
	for i := range committed {
		if committed[i] = 4*i+4 <= len(of) && binary.LittleEndian.Uint32([]byte(of[4*i:])) != 0; !committed[i] {
			continue
		}
		if len(hs) < 8 {
			return 0, nil, nil, fmt.Errorf("redissig: outcomes answered too few id bits (%d committed numbers)", count)
		}
		hashes[i], hs = binary.LittleEndian.Uint64([]byte(hs)), hs[8:]
	}
	return uint32(t), committed, hashes, nil
}

// Read runs r in one pipelined round trip, in which it first applies the
// commits of s not known applied.
func (s *Signatures) Read(ctx context.Context, r *signatures.Read) error {
	ps := s.pendingLogs()
	var c *readCmds
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		s.applying(ctx, p, ps)
		c = s.queueRead(ctx, p, r)
	})
	if err != nil {
		return fmt.Errorf("redissig: read: %w", err)
	}
	if len(ps) > 0 {
		s.markApplied(docsOf(ps)...)
	}
	return s.decodeRead(r, c)
}

// readCmds are the commands of one Read.
type readCmds struct {
	buckets [][]*redis.StringCmd // by fingerprint, by block
	lists   []*redis.StringCmd
	refs    *redis.Cmd
	records []*redis.StringCmd
}

// block returns block i of fp in the tables of K = k: the bits from
// i·64/(k+1) to (i+1)·64/(k+1).
func block(fp uint64, i, k int) uint64 {
	lo, hi := i*64/(k+1), (i+1)*64/(k+1)
	return fp >> lo & (1<<(hi-lo) - 1)
}

// bucketKey returns the key of the bucket of block i with value v.
func (s *Signatures) bucketKey(i int, v uint64) string {
	return s.tag(spread(v^uint64(i)<<58)) + ":t:" + strconv.Itoa(i) + ":" + strconv.FormatUint(v, 16)
}

// queueRead adds the commands of r to p.
func (s *Signatures) queueRead(ctx context.Context, p redis.Pipeliner, r *signatures.Read) *readCmds {
	if r == nil {
		return nil
	}
	c := &readCmds{}
	if r.Record != nil {
		p.Set(ctx, s.recordKey(r.Doc), r.Record, 0)
	}
	k := s.opts.HammingK
	for _, fp := range r.Near {
		bs := make([]*redis.StringCmd, k+1)
		for i := range bs {
			bs[i] = p.Get(ctx, s.bucketKey(i, block(fp, i, k)))
		}
		c.buckets = append(c.buckets, bs)
	}
	for _, key := range r.Keys {
		c.lists = append(c.lists, p.Get(ctx, s.listKey(key)))
	}
	if len(r.Groups) > 0 {
		args := []any{"refs", "0"}
		if r.Members {
			args[1] = "1"
		}
		for _, g := range r.Groups {
			args = append(args, g)
		}
		c.refs = clustersScript.EvalSha(ctx, p, []string{s.clusterKey("turn")}, args...)
	}
	for _, d := range r.Docs {
		c.records = append(c.records, p.Get(ctx, s.recordKey(d)))
	}
	return c
}

// decodeRead fills r's answers from c.
func (s *Signatures) decodeRead(r *signatures.Read, c *readCmds) error {
	if r == nil {
		return nil
	}
	r.Neighbours = make([][]signatures.Neighbour, len(c.buckets))
	for i, bs := range c.buckets {
		var near []signatures.Neighbour
		seen := map[uint64]bool{}
		for _, b := range bs {
			v := []byte(b.Val())
			for j := 0; j+12 <= len(v); j += 12 {
				fp := binary.LittleEndian.Uint64(v[j:])
				if !seen[fp] {
					seen[fp] = true
					near = append(near, signatures.Neighbour{Fingerprint: fp, Doc: binary.LittleEndian.Uint32(v[j+8:])})
				}
			}
		}
		r.Neighbours[i] = near
	}
	r.Lists = make([]signatures.List, len(c.lists))
	for i, l := range c.lists {
		r.Lists[i] = decodeList(stringResult(l))
	}
	r.Refs = nil
	if c.refs != nil {
		rows, ok := c.refs.Val().([]any)
		if !ok || len(rows) != len(r.Groups) {
			return fmt.Errorf("redissig: refs answered %v", c.refs.Val())
		}
		r.Refs = make([]signatures.Ref, len(rows))
		for i, row := range rows {
			ref, err := decodeRef(row, r.Members)
			if err != nil {
				return fmt.Errorf("redissig: cluster %d: %w", r.Groups[i], err)
			}
			r.Refs[i] = ref
		}
	}
	r.Records = make([][]byte, len(c.records))
	for i, rec := range c.records {
		if v, ok := stringResult(rec); ok {
			r.Records[i] = []byte(v)
		}
	}
	return nil
}

// decodeRef decodes a row of clusters.lua's refs.
func decodeRef(row any, members bool) (signatures.Ref, error) {
	f, ok := row.([]any)
	if !ok || len(f) < 2 {
		return signatures.Ref{}, fmt.Errorf("answered %v", row)
	}
	m, h := []byte(f[0].(string)), []byte(f[1].(string))
	if len(m) != 4 || len(h) != 8 {
		return signatures.Ref{}, errors.New("never founded")
	}
	ref := signatures.Ref{Master: binary.LittleEndian.Uint32(m), Hash: binary.LittleEndian.Uint64(h)}
	if members {
		if len(f) != 4 {
			return signatures.Ref{}, fmt.Errorf("answered %v", row)
		}
		mem, ed := []byte(f[2].(string)), f[3].(string)
		if len(mem) != 4*len(ed) {
			return signatures.Ref{}, fmt.Errorf("%d bytes of members, %d edited bits", len(mem), len(ed))
		}
		ref.Members = make([]signatures.Member, len(ed))
		for i := range ref.Members {
			ref.Members[i] = signatures.Member{Doc: binary.LittleEndian.Uint32(mem[4*i:]), Edited: ed[i] == '1'}
		}
	}
	return ref, nil
}

// pollWait is how long a waiting worker blocks between two polls: a
// quarter of the lease, between 10 ms and a second.
func (s *Signatures) pollWait() time.Duration {
	return min(max(s.opts.Lease/4, 10*time.Millisecond), time.Second)
}

// Wait blocks until doc's turn, then applies the logs left and runs r in
// one round trip (see signatures.Shared). It polls (renewing doc's lease
// and giving up the numbers before it whose lease ran out), then blocks
// until the commit before it pushes the logs left, or until the next
// poll.
func (s *Signatures) Wait(ctx context.Context, doc uint32, r *signatures.Read) error {
	var logs []byte
	for logs == nil {
		v, err := s.cluster(ctx, "poll", doc, s.leaseMs())
		if err != nil {
			return fmt.Errorf("redissig: wait: %w", err)
		}
		ans, ok := v.([]any)
		if !ok || len(ans) == 0 {
			return fmt.Errorf("redissig: poll answered %v", v)
		}
		if ans[0] == "LOST" {
			return signatures.ErrLost
		}
		if ans[0] == "READY" {
			logs = []byte(ans[1].(string))
			break
		}
		wait := strconv.FormatFloat(s.pollWait().Seconds(), 'f', 3, 64)
		woke, err := s.rdb.Do(ctx, "BLPOP", s.clusterKey("wake:"+strconv.FormatUint(uint64(doc), 10)), wait).StringSlice()
		switch {
		case err == nil && len(woke) == 2:
			logs = []byte(woke[1])
		case err == nil || errors.Is(err, redis.Nil):
		case ctx.Err() != nil:
			return ctx.Err()
		case !redisx.Transient(err):
			return fmt.Errorf("redissig: wait: %w", err)
		default:
			time.Sleep(s.pollWait())
		}
	}
	apply, err := decodeLogs(logs)
	if err != nil {
		return err
	}
	var c *readCmds
	err = s.pipe(ctx, func(p redis.Pipeliner) {
		s.applying(ctx, p, apply)
		c = s.queueRead(ctx, p, r)
	})
	if err != nil {
		return fmt.Errorf("redissig: wait: %w", err)
	}
	s.markApplied(docsOf(apply)...)
	return s.decodeRead(r, c)
}

// decodeLogs decodes the logs clusters.lua's logs() encodes.
func decodeLogs(b []byte) ([]pending, error) {
	var out []pending
	for len(b) > 0 {
		if len(b) < 12 {
			return nil, errors.New("redissig: the logs are damaged")
		}
		doc, n := binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint32(b[4:]))
		if n < 4 || len(b) < 8+n {
			return nil, errors.New("redissig: the logs are damaged")
		}
		l, err := decodeLog(b[12 : 8+n])
		if err != nil {
			return nil, fmt.Errorf("redissig: log %d: %w", doc, err)
		}
		out = append(out, pending{doc, binary.LittleEndian.Uint32(b[8:]), l})
		b = b[8+n:]
	}
	return out, nil
}

// logRecord is what a commit adds to the lists and tables: its log.
type logRecord struct {
	table bool
	fp    uint64
	keys  []signatures.Key
}

// encodeLog encodes the log of c: a flags byte (1: table), the
// fingerprint (8 bytes), then each key: its kind (uvarint) and sum (8
// bytes).
func encodeLog(c *signatures.Commit) []byte {
	b := make([]byte, 0, 9+10*len(c.Keys))
	var flags byte
	if c.Table {
		flags = 1
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint64(b, c.Fingerprint)
	for _, k := range c.Keys {
		b = binary.AppendUvarint(b, uint64(k.Kind))
		b = binary.LittleEndian.AppendUint64(b, k.Sum)
	}
	return b
}

// decodeLog decodes what encodeLog encoded.
func decodeLog(b []byte) (*logRecord, error) {
	if len(b) < 9 {
		return nil, errors.New("truncated")
	}
	l := &logRecord{table: b[0]&1 != 0, fp: binary.LittleEndian.Uint64(b[1:])}
	for b = b[9:]; len(b) > 0; {
		kind, n := binary.Uvarint(b)
		if n <= 0 || len(b) < n+8 || kind > 1<<16-1 {
			return nil, errors.New("truncated")
		}
		l.keys = append(l.keys, signatures.Key{Kind: signatures.Kind(kind), Sum: binary.LittleEndian.Uint64(b[n:])})
		b = b[n+8:]
	}
	return l, nil
}

// queueApply adds to p what applies the log of doc, in cluster group:
// its entry in each list, under the commit guard, and its fingerprint in
// the tables.
func (s *Signatures) queueApply(ctx context.Context, p redis.Pipeliner, doc, group uint32, l *logRecord) {
	e := signatures.Entry{ID: doc, Group: group}
	for _, k := range l.keys {
		listsScript.EvalSha(ctx, p, s.addKeys(k), s.addArgs(k, e, doc+1)...)
	}
	if l.table {
		entry := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, l.fp), doc)
		for i := range s.opts.HammingK + 1 {
			listsScript.EvalSha(ctx, p, []string{s.bucketKey(i, block(l.fp, i, s.opts.HammingK))}, "tadd", entry)
		}
	}
}

// Commit assigns c.Doc at its turn (see signatures.Shared). Its log is
// applied by the next Read of s or by the next turn's Wait, whichever
// comes first.
func (s *Signatures) Commit(ctx context.Context, c *signatures.Commit) (group uint32, hash uint64, err error) {
	group, hash, log, err := s.assign(ctx, c)
	if err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	s.mine = append(s.mine, pending{c.Doc, group, log})
	s.mu.Unlock()
	return group, hash, nil
}

// assign runs the commit script of c: the first step of Commit.
func (s *Signatures) assign(ctx context.Context, c *signatures.Commit) (group uint32, hash uint64, l *logRecord, err error) {
	log := encodeLog(c)
	join, expect := int64(-1), int64(-1)
	if c.Join != signatures.NoCluster {
		join, expect = int64(c.Join), int64(c.Expect)
	}
	args := []any{"commit", c.Doc, c.ID, join, flag(c.Master), flag(c.Edited), expect, log, len(c.Hashes)}
	for _, h := range c.Hashes {
		args = append(args, binary.LittleEndian.AppendUint64(nil, h))
	}
	applied := s.takeApplied()
	v, err := s.cluster(ctx, append(args, applied...)...)
	if err != nil {
		s.giveBack(applied)
		return 0, 0, nil, fmt.Errorf("redissig: commit: %w", err)
	}
	ans, ok := v.([]any)
	if !ok || len(ans) == 0 {
		return 0, 0, nil, fmt.Errorf("redissig: commit answered %v", v)
	}
	switch ans[0] {
	case "LOST":
		return 0, 0, nil, signatures.ErrLost
	case "DUP":
		return 0, 0, nil, fmt.Errorf("%w: %q (document %d)", signatures.ErrDuplicate, c.ID, ans[1])
	}
	h := []byte(ans[2].(string))
	if len(h) != 8 {
		return 0, 0, nil, fmt.Errorf("redissig: commit answered %v", v)
	}
	l, err = decodeLog(log)
	return uint32(ans[1].(int64)), binary.LittleEndian.Uint64(h), l, err
}

// flag encodes a boolean argument.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Assignments calls fn with every committed document in number order.
// Cost: one round trip reading the whole assignment (about 30 bytes a
// document with its id).
func (s *Signatures) Assignments(ctx context.Context, fn func(signatures.Assigned) error) error {
	var of, masters, hashes, edited *redis.StringCmd
	var ids *redis.MapStringStringCmd
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		of = p.Get(ctx, s.clusterKey("of"))
		masters = p.Get(ctx, s.clusterKey("masters"))
		hashes = p.Get(ctx, s.clusterKey("hash"))
		edited = p.Get(ctx, s.clusterKey("edited"))
		ids = p.HGetAll(ctx, s.clusterKey("ids"))
	})
	if err != nil {
		return fmt.Errorf("redissig: assignments: %w", err)
	}
	byDoc := map[uint32]string{}
	for id, d := range ids.Val() {
		n, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return fmt.Errorf("redissig: assignments: id %q is document %q", id, d)
		}
		byDoc[uint32(n)] = id
	}
	o, m, h, e := []byte(of.Val()), []byte(masters.Val()), []byte(hashes.Val()), []byte(edited.Val())
	for doc := 0; 4*doc+4 <= len(o); doc++ {
		g := binary.LittleEndian.Uint32(o[4*doc:])
		if g == 0 {
			continue
		}
		g--
		if int(8*g+8) > len(h) || int(4*g+4) > len(m) {
			return fmt.Errorf("redissig: assignments: document %d in cluster %d, never founded", doc, g)
		}
		master := binary.LittleEndian.Uint32(m[4*g:])
		a := signatures.Assigned{Doc: uint32(doc), ID: byDoc[uint32(doc)], Group: g, Hash: binary.LittleEndian.Uint64(h[8*g:]),
			Master: master, MasterID: byDoc[master], Edited: doc/8 < len(e) && e[doc/8]&(0x80>>(doc%8)) != 0}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}
