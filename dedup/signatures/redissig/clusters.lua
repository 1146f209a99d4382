-- The cluster assignment of a signatures store (package redissig) and the
-- turns of its workers: every key shares the hash tag of KEYS[1]
-- ("{prefix}:turn"), so each call is one atomic step on one master.
-- ARGV[1] names the operation.
--
-- Keys (P = KEYS[1] without ":turn"):
--   P:turn     the next document number to commit
--   P:next     the numbers given (INCR: the next one is its value)
--   P:lease    hash doc -> the time (ms, the server's clock) its lease
--              runs out, for the numbers given and neither committed nor
--              given up
--   P:logs     hash doc -> what its commit adds to the lists (its group, 4
--              bytes, then the client's encoding), until known applied
--   P:of       4 bytes a document: its cluster number + 1 (0: none)
--   P:masters  4 bytes a cluster: its master
--   P:hash     8 bytes a cluster: the bits of its id
--   P:mem:N    members of cluster N, 4 bytes each, in order of joining;
--              only for clusters of two or more
--   P:live     hash id bits -> cluster number
--   P:ids      hash document id -> number
--   P:edited   bitmap: the documents that joined through the edit
--              allowance
--   P:count    documents committed
--   P:wake:N   a list pushed the logs left when N's turn comes (its worker
--              blocks on it)
--
-- Numbers are little-endian.

local P = string.sub(KEYS[1], 1, -6)
local TURN, NEXT, LEASE, LOGS = KEYS[1], P .. ':next', P .. ':lease', P .. ':logs'
local OF, MASTERS, HASH, LIVE, IDS, EDITED, COUNT = P .. ':of', P .. ':masters', P .. ':hash', P .. ':live', P .. ':ids', P .. ':edited', P .. ':count'
local op = ARGV[1]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function u32(s, i) return (struct.unpack('<I4', s, i)) end

-- of returns the cluster of doc, -1 if none.
local function of(doc)
  local s = redis.call('GETRANGE', OF, doc * 4, doc * 4 + 3)
  if #s < 4 then return -1 end
  return u32(s, 1) - 1
end

local function clusters() return redis.call('STRLEN', MASTERS) / 4 end

local function master(g) return u32(redis.call('GETRANGE', MASTERS, g * 4, g * 4 + 3), 1) end

local function turn() return tonumber(redis.call('GET', TURN) or '0') end

-- logs returns the logs left, each its document and length (4 bytes
-- each) and the log.
local function logs()
  local kv = redis.call('HGETALL', LOGS)
  local out = {}
  for i = 1, #kv, 2 do
    out[#out + 1] = struct.pack('<I4I4', tonumber(kv[i]), #kv[i + 1]) .. kv[i + 1]
  end
  return table.concat(out)
end

-- advance makes t the turn, skipping the numbers given up (without a
-- lease) before the next number to give, and wakes the turn's worker:
-- it pushes the logs left on the list it blocks on.
local function advance(t)
  local n = tonumber(redis.call('GET', NEXT) or '0')
  while t < n and redis.call('HEXISTS', LEASE, t) == 0 do t = t + 1 end
  redis.call('SET', TURN, t)
  if t < n then
    local w = P .. ':wake:' .. t
    redis.call('RPUSH', w, logs())
    redis.call('PEXPIRE', w, 60000)
  end
  return t
end

-- begin: ARGV[2] the lease (ms), ARGV[3...] logs known applied. Returns
-- {doc, 1 if it is doc's turn, the documents whose logs are left}.
if op == 'begin' then
  for i = 3, #ARGV do redis.call('HDEL', LOGS, ARGV[i]) end
  local doc = redis.call('INCR', NEXT) - 1
  redis.call('HSET', LEASE, doc, now_ms() + tonumber(ARGV[2]))
  local at = 0
  if turn() == doc then at = 1 end
  return {doc, at, redis.call('HKEYS', LOGS)}
end

-- forget: ARGV[2...] logs known applied. Deletes them.
if op == 'forget' then
  for i = 2, #ARGV do redis.call('HDEL', LOGS, ARGV[i]) end
  return 1
end

-- poll: ARGV[2] doc, ARGV[3] the lease (ms). Renews doc's lease, gives up
-- the numbers before it whose lease ran out, and returns {'READY', the
-- logs left (see logs)} at doc's turn, {'WAIT', turn} before, {'LOST'} if
-- doc was given up.
if op == 'poll' then
  local doc = tonumber(ARGV[2])
  if redis.call('HEXISTS', LEASE, doc) == 0 then return {'LOST'} end
  local now = now_ms()
  redis.call('HSET', LEASE, doc, now + tonumber(ARGV[3]))
  local t0 = turn()
  local t = t0
  while t < doc do
    local l = redis.call('HGET', LEASE, t)
    if l and tonumber(l) > now then break end
    redis.call('HDEL', LEASE, t)
    t = t + 1
  end
  if t ~= t0 then t = advance(t) end
  if t == doc then return {'READY', logs()} end
  return {'WAIT', t}
end

-- commit: ARGV[2] doc, ARGV[3] its id, ARGV[4] the cluster it joins (-1:
-- it founds one), ARGV[5] '1' if it becomes the master, ARGV[6] '1' if it
-- joins through the edit allowance, ARGV[7] the master it saw the cluster
-- it joins have, ARGV[8] its log, ARGV[9] the number h of candidate id
-- bits for a new cluster, ARGV[10 .. 9+h] those, then the logs known
-- applied. Returns {'OK', cluster, id bits}, {'LOST'} or {'DUP', the
-- committed document of that id}. A commit repeated after it was applied
-- returns its first answer. The master is compared and set: a commit
-- that saw another master than the cluster has is given up ({'LOST'}).
if op == 'commit' then
  local doc, id, join = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
  local nh = tonumber(ARGV[9])
  for i = 10 + nh, #ARGV do redis.call('HDEL', LOGS, ARGV[i]) end
  if turn() ~= doc then
    local g = of(doc)
    if g >= 0 and redis.call('HGET', IDS, id) == tostring(doc) then
      return {'OK', g, redis.call('GETRANGE', HASH, g * 8, g * 8 + 7)}
    end
    return {'LOST'}
  end
  local prev = redis.call('HGET', IDS, id)
  if prev and of(tonumber(prev)) >= 0 then
    redis.call('HDEL', LEASE, doc)
    advance(doc + 1)
    return {'DUP', tonumber(prev)}
  end
  if join >= 0 and (join >= clusters() or master(join) ~= tonumber(ARGV[7])) then
    redis.call('HDEL', LEASE, doc)
    advance(doc + 1)
    return {'LOST'}
  end
  local g, h
  if join < 0 then
    g = clusters()
    for i = 10, 9 + nh do
      if redis.call('HEXISTS', LIVE, ARGV[i]) == 0 then
        h = ARGV[i]
        break
      end
    end
    if not h then return redis.error_reply('clusters.lua: every candidate cluster id is taken') end
    redis.call('APPEND', MASTERS, struct.pack('<I4', doc))
    redis.call('APPEND', HASH, h)
    redis.call('HSET', LIVE, h, g)
  else
    g = join
    h = redis.call('GETRANGE', HASH, g * 8, g * 8 + 7)
    local mem = P .. ':mem:' .. g
    if redis.call('EXISTS', mem) == 0 then redis.call('SET', mem, struct.pack('<I4', master(g))) end
    redis.call('APPEND', mem, struct.pack('<I4', doc))
    if ARGV[5] == '1' then redis.call('SETRANGE', MASTERS, g * 4, struct.pack('<I4', doc)) end
    if ARGV[6] == '1' then redis.call('SETBIT', EDITED, doc, 1) end
  end
  redis.call('SETRANGE', OF, doc * 4, struct.pack('<I4', g + 1))
  redis.call('HSET', IDS, id, doc)
  redis.call('HSET', LOGS, doc, struct.pack('<I4', g) .. ARGV[8])
  redis.call('HDEL', LEASE, doc)
  redis.call('INCR', COUNT)
  advance(doc + 1)
  return {'OK', g, h}
end

-- abandon: ARGV[2] doc. Gives the number up; returns 0 if it was no longer
-- leased (given up already, or committed), 1 otherwise.
if op == 'abandon' then
  local doc = tonumber(ARGV[2])
  local held = redis.call('HDEL', LEASE, doc)
  if turn() == doc then advance(doc + 1) end
  return held
end

-- outcomes: ARGV[2] from, ARGV[3] count (>= 1). Gives up the numbers at
-- the turn, up to from+count-1, whose lease ran out (as a waiting worker's
-- poll does, so the turn moves on when no worker waits behind a dead one),
-- and returns {the turn, the 4 bytes of P:of of each of the numbers, the
-- 8 id bits of the cluster of each committed one, in order}.
if op == 'outcomes' then
  local from, count = tonumber(ARGV[2]), tonumber(ARGV[3])
  local n = tonumber(redis.call('GET', NEXT) or '0')
  local now = now_ms()
  local t0 = turn()
  local t = t0
  while t < from + count and t < n do
    local l = redis.call('HGET', LEASE, t)
    if l and tonumber(l) > now then break end
    redis.call('HDEL', LEASE, t)
    t = t + 1
  end
  if t ~= t0 then t = advance(t) end
  local of = redis.call('GETRANGE', OF, from * 4, (from + count) * 4 - 1)
  local hs = {}
  for i = 1, #of - 3, 4 do
    local g = u32(of, i)
    if g > 0 then hs[#hs + 1] = redis.call('GETRANGE', HASH, (g - 1) * 8, (g - 1) * 8 + 7) end
  end
  return {t, of, table.concat(hs)}
end

-- refs: ARGV[2] '1' for the members, ARGV[3...] cluster numbers. Returns
-- for each {master (4 bytes), id bits (8 bytes)[, members (4 bytes each),
-- '0' or '1' a member: edited]}.
if op == 'refs' then
  local members = ARGV[2] == '1'
  local out = {}
  for i = 3, #ARGV do
    local g = tonumber(ARGV[i])
    local m = redis.call('GETRANGE', MASTERS, g * 4, g * 4 + 3)
    local h = redis.call('GETRANGE', HASH, g * 8, g * 8 + 7)
    if members then
      local mem = redis.call('GET', P .. ':mem:' .. g) or m
      local ed = {}
      for j = 1, #mem, 4 do ed[#ed + 1] = redis.call('GETBIT', EDITED, u32(mem, j)) end
      out[#out + 1] = {m, h, mem, table.concat(ed)}
    else
      out[#out + 1] = {m, h}
    end
  end
  return out
end

-- The Clusters interface, one call each: found doc, join doc n, of doc,
-- master n, setmaster n doc, len, reset.
if op == 'found' then
  local doc = tonumber(ARGV[2])
  local g = clusters()
  redis.call('APPEND', MASTERS, struct.pack('<I4', doc))
  redis.call('APPEND', HASH, struct.pack('<I4I4', 0, 0))
  redis.call('SETRANGE', OF, doc * 4, struct.pack('<I4', g + 1))
  return g
end
if op == 'join' then
  local doc, g = tonumber(ARGV[2]), tonumber(ARGV[3])
  if g >= clusters() then return redis.error_reply('clusters.lua: join to a cluster never founded') end
  redis.call('SETRANGE', OF, doc * 4, struct.pack('<I4', g + 1))
  return 1
end
if op == 'of' then return of(tonumber(ARGV[2])) end
if op == 'master' then
  local g = tonumber(ARGV[2])
  if g >= clusters() then return -1 end
  return master(g)
end
if op == 'setmaster' then
  local g = tonumber(ARGV[2])
  if g >= clusters() then return redis.error_reply('clusters.lua: setmaster of a cluster never founded') end
  redis.call('SETRANGE', MASTERS, g * 4, struct.pack('<I4', tonumber(ARGV[3])))
  return 1
end
if op == 'len' then return clusters() end
if op == 'reset' then
  for g = 0, clusters() - 1 do redis.call('DEL', P .. ':mem:' .. g) end
  redis.call('DEL', TURN, NEXT, LEASE, LOGS, OF, MASTERS, HASH, LIVE, IDS, EDITED, COUNT)
  return 1
end

return redis.error_reply('clusters.lua: unknown operation ' .. tostring(op))
