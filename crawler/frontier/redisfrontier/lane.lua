-- One lane of the Redis frontier: every key of a lane shares the hash tag
-- of KEYS[1] ("{prefix:lane}:n", the lane's counters), so each call is one
-- atomic step on one master. ARGV[1] names the operation.
--
-- Keys (P = KEYS[1] without ":n"):
--   P:n        hash: pending, inflight, done, scheduled (counters)
--   P:s        hash url -> record: state byte ('P' pending, 'F' in flight,
--              'D' done) then, for P and F, the 16-byte queue key
--              (priority, sequence: byte-sortable, made by the client), the
--              host's length (2 bytes) and host, and the payload; for D the
--              outcome
--   P:q:HOST   sorted set (all scores 0, in byte order) of the host's
--              pending URLs: queue key .. url
--   P:r        sorted set host -> the time (ms) its next URL may be
--              claimed, for hosts with pending URLs
--   P:x        hash host -> the time (ms) the host may next be claimed
--              (kept while its queue is empty)
--   P:d        hash host -> its delay between claims (ms)
--   P:st       hash host -> the time (ms, to the microsecond) its last
--              request started (start) or was sent at the latest (end)
--   P:bz       hash host -> while a request to it is in flight, the time
--              (ms, to the microsecond) it counts as ended if no end comes
--   P:pz       hash host -> the end (ms) of its pause (Retry-After)
--   P:k:NAME:HOST  what the workers learnt of a host (take, put), and
--              P:k:NAME:HOST:lock the worker learning it
--   P:l        sorted set url -> lease expiry (ms); P:h hash url -> holder
--              "|" the claim's token; P:held:HOLDER set of the holder's URLs
--   P:t        sorted set url -> revisit time (ms); P:ti hash url ->
--              revisit: time (ns, decimal) "|" priority key (8 bytes)
--              payload

local P = string.sub(KEYS[1], 1, -3)
local N = KEYS[1]
local S, R, X, D, L, H, T, TI = P .. ':s', P .. ':r', P .. ':x', P .. ':d', P .. ':l', P .. ':h', P .. ':t', P .. ':ti'
local ST, PZ, BZ = P .. ':st', P .. ':pz', P .. ':bz'

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- now_msf is now in ms to the microsecond (a fraction): the gate's
-- starts and sendings (P:st, P:bz) are kept so, written with msf, since
-- Lua's own conversion of a number to a string keeps 14 digits, 0.1 ms
-- at today's times.
local function now_msf()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end

local function msf(t) return string.format('%.3f', t) end

-- us is a positive span in ms as whole microseconds, rounded up: a
-- wait is never shortened.
local function us(ms) return math.max(math.ceil(ms * 1000), 0) end

local function hq(host) return P .. ':q:' .. host end

-- rec returns a record's state, queue key, host and payload (or outcome).
local function rec(v)
  local st = string.sub(v, 1, 1)
  if st == 'D' then return st, nil, nil, string.sub(v, 2) end
  local key = string.sub(v, 2, 17)
  local hl = string.byte(v, 18) * 256 + string.byte(v, 19)
  local host = string.sub(v, 20, 19 + hl)
  return st, key, host, string.sub(v, 20 + hl)
end

local function enc(st, key, host, payload)
  local hl = #host
  return st .. key .. string.char(math.floor(hl / 256), hl % 256) .. host .. payload
end

-- arm makes host claimable at its next allowed time, or now.
local function arm(host, now)
  if redis.call('ZSCORE', R, host) then return end
  local x = tonumber(redis.call('HGET', X, host) or '0')
  redis.call('ZADD', R, math.max(x, now), host)
end

-- unqueue takes a pending url out of its host's queue.
local function unqueue(url, key, host)
  local q = hq(host)
  redis.call('ZREM', q, key .. url)
  if redis.call('ZCARD', q) == 0 then redis.call('ZREM', R, host) end
end

-- enqueue queues url under key (fresh position) for host.
local function enqueue(url, key, host, payload, now)
  redis.call('HSET', S, url, enc('P', key, host, payload))
  redis.call('ZADD', hq(host), 0, key .. url)
  redis.call('HINCRBY', N, 'pending', 1)
  arm(host, now)
end

-- leave takes url out of its state, if it has one, and returns the state.
local function leave(url)
  local v = redis.call('HGET', S, url)
  if not v then return nil end
  local st, key, host = rec(v)
  if st == 'P' then
    unqueue(url, key, host)
    redis.call('HINCRBY', N, 'pending', -1)
  elseif st == 'F' then
    local holder = redis.call('HGET', H, url)
    redis.call('ZREM', L, url)
    redis.call('HDEL', H, url)
    if holder then
      holder = string.sub(holder, 1, (string.find(holder, '|', 1, true) or 0) - 1)
      redis.call('SREM', P .. ':held:' .. holder, url)
    end
    redis.call('HINCRBY', N, 'inflight', -1)
  else
    redis.call('HINCRBY', N, 'done', -1)
  end
  redis.call('HDEL', S, url)
  return st
end

-- release returns an in-flight url to its host's queue at its position.
local function release(url, now)
  local v = redis.call('HGET', S, url)
  if not v then return end
  local st, key, host, payload = rec(v)
  if st ~= 'F' then return end
  leave(url)
  enqueue(url, key, host, payload, now)
end

-- expire returns the URLs whose leases ran out (their holders died).
local function expire(now)
  local urls = redis.call('ZRANGEBYSCORE', L, '-inf', now, 'LIMIT', 0, 1000)
  for _, url in ipairs(urls) do release(url, now) end
  return #urls
end

local op = ARGV[1]

if op == 'commit' then
  -- Groups of 6 from ARGV[2]: op, url, host, queue key (16 bytes: Add,
  -- Requeue, Reprioritize), priority key (8: Schedule) or the payload
  -- replaced (Replace), payload or outcome, revisit time (ms) "|" (ns).
  -- Returns one flag per Add: 1 if queued.
  local now = now_ms()
  local added = {}
  for i = 2, #ARGV, 6 do
    local o, url, host, key, data, at = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
    if o == 'add' then
      if redis.call('HEXISTS', S, url) == 1 then
        added[#added + 1] = 0
      else
        enqueue(url, key, host, data, now)
        added[#added + 1] = 1
      end
    elseif o == 'done' then
      leave(url)
      redis.call('HSET', S, url, 'D' .. data)
      redis.call('HINCRBY', N, 'done', 1)
    elseif o == 'requeue' then
      leave(url)
      enqueue(url, key, host, data, now)
    elseif o == 'reprioritize' then
      local v = redis.call('HGET', S, url)
      if v then
        local st, old, h, payload = rec(v)
        if st == 'P' then
          unqueue(url, old, h)
          redis.call('HINCRBY', N, 'pending', -1)
          enqueue(url, key, h, payload, now)
        end
      end
    elseif o == 'replace' then
      local v = redis.call('HGET', S, url)
      if v then
        local st, k, h, payload = rec(v)
        if st == 'P' and payload == key then
          redis.call('HSET', S, url, enc('P', k, h, data))
        end
      end
    elseif o == 'schedule' then
      local sep = string.find(at, '|', 1, true)
      if redis.call('ZADD', T, tonumber(string.sub(at, 1, sep - 1)), url) == 1 then
        redis.call('HINCRBY', N, 'scheduled', 1)
      end
      redis.call('HSET', TI, url, string.sub(at, sep + 1) .. '|' .. host .. '|' .. key .. data)
    end
  end
  return added
end

-- ahead returns how long before host's turn a claim may take its URL:
-- ahead (ms), at most half the host's delay.
local function ahead(host, early, default)
  if early <= 0 then return 0 end
  local delay = tonumber(redis.call('HGET', D, host) or default)
  return math.min(early, math.floor(delay / 2))
end

if op == 'peek' then
  -- ARGV[2]: most hosts, ARGV[3]: most URLs per host, ARGV[4]: how long
  -- (ms) before its turn a host may be claimed (at most half its delay),
  -- ARGV[5]: the default delay (ms). Returns the lane's pending count,
  -- the earliest time a host with pending URLs may be claimed (-1: none;
  -- its turn), then for eligible hosts (in the order their turns came)
  -- the first URLs of their queues: member, payload pairs.
  local now = now_ms()
  expire(now)
  local out = {tonumber(redis.call('HGET', N, 'pending') or '0'), -1}
  local first = redis.call('ZRANGE', R, 0, 0, 'WITHSCORES')
  if #first > 0 then out[2] = tonumber(first[2]) end
  local early = tonumber(ARGV[4])
  local hosts = redis.call('ZRANGEBYSCORE', R, '-inf', now + early, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
  for i = 1, #hosts, 2 do
    local host = hosts[i]
    local urls = {}
    if tonumber(hosts[i + 1]) <= now + ahead(host, early, ARGV[5]) then urls = redis.call('ZRANGE', hq(host), 0, tonumber(ARGV[3]) - 1) end
    for _, m in ipairs(urls) do
      local url = string.sub(m, 17)
      local _, _, _, payload = rec(redis.call('HGET', S, url))
      out[#out + 1] = m
      out[#out + 1] = payload
    end
  end
  return out
end

if op == 'claim' then
  -- ARGV[2]: url, ARGV[3]: holder, ARGV[4]: lease (ms), ARGV[5]: default
  -- delay (ms), ARGV[6]: the claim's token, ARGV[7]: how long (ms) before
  -- its host's turn a claim may be made (at most half the host's delay).
  -- Claims url if it is pending and its host may be claimed now,
  -- re-arming the host at its turn (or now, if later) + its delay.
  -- Returns 1, or 0 if not; 1 again for a claim repeated with its token
  -- (its answer was lost).
  local now = now_ms()
  local url, holder = ARGV[2], ARGV[3]
  local v = redis.call('HGET', S, url)
  if not v then return 0 end
  local st, key, host, payload = rec(v)
  if st == 'F' and redis.call('HGET', H, url) == holder .. '|' .. ARGV[6] then return 1 end
  if st ~= 'P' then return 0 end
  local ready = redis.call('ZSCORE', R, host)
  if not ready or tonumber(ready) > now + ahead(host, tonumber(ARGV[7] or '0'), ARGV[5]) then return 0 end
  unqueue(url, key, host)
  local delay = tonumber(redis.call('HGET', D, host) or ARGV[5])
  local turn = math.max(now, tonumber(ready))
  redis.call('HSET', X, host, turn + delay)
  if redis.call('ZCARD', hq(host)) > 0 then redis.call('ZADD', R, turn + delay, host) end
  redis.call('HSET', S, url, enc('F', key, host, payload))
  redis.call('ZADD', L, now + tonumber(ARGV[4]), url)
  redis.call('HSET', H, url, holder .. '|' .. ARGV[6])
  redis.call('SADD', P .. ':held:' .. holder, url)
  redis.call('HINCRBY', N, 'pending', -1)
  redis.call('HINCRBY', N, 'inflight', 1)
  return 1
end

if op == 'pace' then
  -- ARGV[2]: host, ARGV[3]: its delay (ms; 0: the default), ARGV[4]: no
  -- claim of it before this time (ms; 0: none).
  local host, delay, untilms = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
  if delay > 0 then redis.call('HSET', D, host, delay) else redis.call('HDEL', D, host) end
  if untilms > 0 then
    if untilms > tonumber(redis.call('HGET', PZ, host) or '0') then redis.call('HSET', PZ, host, untilms) end
    if untilms > tonumber(redis.call('HGET', X, host) or '0') then redis.call('HSET', X, host, untilms) end
    if redis.call('ZSCORE', R, host) then redis.call('ZADD', R, 'GT', untilms, host) end
  end
  return 1
end

-- rearm puts the host's next claim no earlier than t.
local function rearm(host, t)
  if t > tonumber(redis.call('HGET', X, host) or '0') then
    redis.call('HSET', X, host, t)
    local ready = redis.call('ZSCORE', R, host)
    if ready and tonumber(ready) < t then redis.call('ZADD', R, t, host) end
  end
end

if op == 'start' then
  -- ARGV[2]: host, ARGV[3]: default delay (ms), ARGV[4]: '1' if the
  -- caller holds a claim of the host not yet spent on a request, ARGV[5]:
  -- the longest a request may be in flight before it counts as ended
  -- (ms), ARGV[6]: the frontier's ahead (ms: claims before their turn).
  -- A request to a host with a delay may start when none is in
  -- flight (end), its delay has passed since the last one started and
  -- since it was sent (end), and its pause has ended — and, without a
  -- claim, when its next claim is due (claims re-arm it). Returns {1, 0}
  -- and records the start, re-arming the host at now + its delay; or,
  -- for a claim whose turn comes within ahead, {1, us}: the start
  -- recorded us microseconds from now, for the request to go then
  -- without asking again (a round trip and a timer fewer at each turn);
  -- or {0, us}: the time to wait before asking again. Times of starts
  -- and sendings are kept to the microsecond (now_msf).
  local now = now_msf()
  local asked = now
  local host = ARGV[2]
  local delay = tonumber(redis.call('HGET', D, host) or ARGV[3])
  local ahead = tonumber(ARGV[6] or '0')
  if delay > 0 and tonumber(redis.call('HGET', BZ, host) or '0') > now then
    -- In flight: a claim made ahead of its turn asks again at the
    -- earliest next start, then every 10 ms, not a whole delay later.
    if ahead <= 0 then return {0, us(delay)} end
    return {0, us(math.max(tonumber(redis.call('HGET', ST, host) or '0') + delay - now, math.min(delay, 10)))}
  end
  local at = math.max(tonumber(redis.call('HGET', ST, host) or '0') + delay, tonumber(redis.call('HGET', PZ, host) or '0'))
  if ARGV[4] ~= '1' then at = math.max(at, tonumber(redis.call('HGET', X, host) or '0')) end
  if at > now then
    if ARGV[4] ~= '1' or at - now > ahead then return {0, us(at - now)} end
    now = at
  end
  redis.call('HSET', ST, host, msf(now))
  if delay > 0 then redis.call('HSET', BZ, host, msf(now + tonumber(ARGV[5]))) end
  rearm(host, math.ceil(now + delay))
  return {1, us(now - asked)}
end

if op == 'end' then
  -- ARGV[2]: host, ARGV[3]: default delay (ms), ARGV[4]: how long (us,
  -- rounded up) after its recorded start the request was sent at the
  -- latest. A request start let go was answered (or failed): the next
  -- may start now, a delay after this one was sent, which came before
  -- that start + ARGV[4] + 1 us (never later than now).
  local now = now_msf()
  local host = ARGV[2]
  local delay = tonumber(redis.call('HGET', D, host) or ARGV[3])
  local sent = now
  local started = redis.call('HGET', ST, host)
  if started and redis.call('HEXISTS', BZ, host) == 1 then
    sent = math.min(now, tonumber(started) + (tonumber(ARGV[4]) + 1) / 1000)
  end
  redis.call('HDEL', BZ, host)
  redis.call('HSET', ST, host, msf(sent))
  rearm(host, math.ceil(sent + delay))
  return 1
end

if op == 'unclaim' then
  -- ARGV[2]: url, ARGV[3]: holder. Returns a URL the holder claimed to its
  -- host's queue at its position (its host stays armed as the claim and
  -- any start left it). Returns 1, or 0 if the holder does not hold it.
  local held = redis.call('HGET', H, ARGV[2])
  if not held or string.sub(held, 1, #ARGV[3] + 1) ~= ARGV[3] .. '|' then return 0 end
  release(ARGV[2], now_ms())
  return 1
end

if op == 'held' then
  -- ARGV[2]: holder. Returns the lane's URLs in flight and, of them, the
  -- holder's.
  return {tonumber(redis.call('HGET', N, 'inflight') or '0'), redis.call('SCARD', P .. ':held:' .. ARGV[2])}
end

if op == 'take' then
  -- ARGV[2]: NAME:HOST, ARGV[3]: holder, ARGV[4]: hold (ms). Returns {1,
  -- value} if a worker put it; else {2} if the holder now holds the right
  -- to learn it, for hold; else {0} (another holds it).
  local k = P .. ':k:' .. ARGV[2]
  local v = redis.call('GET', k)
  if v then return {1, v} end
  if redis.call('SET', k .. ':lock', ARGV[3], 'NX', 'PX', tonumber(ARGV[4])) then return {2} end
  if redis.call('GET', k .. ':lock') == ARGV[3] then return {2} end
  return {0}
end

if op == 'put' then
  -- ARGV[2]: NAME:HOST, ARGV[3]: value, ARGV[4]: ttl (ms). Keeps the value
  -- and ends the right to learn it.
  local k = P .. ':k:' .. ARGV[2]
  redis.call('SET', k, ARGV[3], 'PX', tonumber(ARGV[4]))
  redis.call('DEL', k .. ':lock')
  return 1
end

if op == 'renew' then
  -- ARGV[2]: holder, ARGV[3]: lease (ms). Extends the holder's leases.
  local now = now_ms()
  local urls = redis.call('SMEMBERS', P .. ':held:' .. ARGV[2])
  for _, url in ipairs(urls) do redis.call('ZADD', L, 'XX', now + tonumber(ARGV[3]), url) end
  return #urls
end

if op == 'release' then
  -- ARGV[2]: holder. Returns the holder's URLs to the queue.
  local now = now_ms()
  local urls = redis.call('SMEMBERS', P .. ':held:' .. ARGV[2])
  for _, url in ipairs(urls) do release(url, now) end
  return #urls
end

if op == 'duecount' then
  -- ARGV[2]: now (ms). The number of revisits due.
  return redis.call('ZCOUNT', T, '-inf', tonumber(ARGV[2]))
end

-- before reports whether byte string a sorts before b (byte order, not
-- the server's collation, which string comparison in Lua would use).
local function before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

if op == 'due' then
  -- ARGV[2]: now (ms), ARGV[3]: most to move, ARGV[4..]: fresh sequence
  -- keys (8 bytes), one per revisit. Returns how many were queued. A
  -- pending URL whose queue key sorts after the revisit's priority key
  -- (a lower priority) is raised to it, at a fresh position, its payload
  -- kept; it is not counted.
  local now = tonumber(ARGV[2])
  local urls = redis.call('ZRANGEBYSCORE', T, '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
  local moved = 0
  for i, url in ipairs(urls) do
    local v = redis.call('HGET', TI, url)
    redis.call('ZREM', T, url)
    redis.call('HDEL', TI, url)
    redis.call('HINCRBY', N, 'scheduled', -1)
    local s1 = string.find(v, '|', 1, true)
    local s2 = string.find(v, '|', s1 + 1, true)
    local host = string.sub(v, s1 + 1, s2 - 1)
    local pkey, payload = string.sub(v, s2 + 1, s2 + 8), string.sub(v, s2 + 9)
    local st = redis.call('HGET', S, url)
    if not st or string.sub(st, 1, 1) == 'D' then
      leave(url)
      enqueue(url, pkey .. ARGV[3 + i], host, payload, now_ms())
      moved = moved + 1
    elseif string.sub(st, 1, 1) == 'P' then
      local _, old, h, kept = rec(st)
      if before(pkey, string.sub(old, 1, 8)) then
        unqueue(url, old, h)
        redis.call('HINCRBY', N, 'pending', -1)
        enqueue(url, pkey .. ARGV[3 + i], h, kept, now_ms())
      end
    end
  end
  return moved
end

return redis.error_reply('frontier: unknown lane operation ' .. tostring(op))
