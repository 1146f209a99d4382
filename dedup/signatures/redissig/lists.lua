-- The candidate lists of one shard of a signatures store (package
-- redissig), and its neighbour-table buckets. Every key of a shard shares
-- the hash tag of the shard ("{prefix/shard}"), so each call is one
-- atomic step on one master. ARGV[1] names the operation.
--
-- A list (KEYS[1], ops add and remove) is a string: 'L', or 'S' for a
-- stop key, then the commit guard (4 bytes: one more than the last
-- document whose commit added to the list, 0 if none), then its entries,
-- 8 bytes each (document, group). The shard's counters (KEYS[2]) are a
-- hash "<kind>:<counter>" -> count.
--
-- A table bucket (KEYS[1], op tadd) is a string of 12-byte entries
-- (fingerprint, document), each fingerprint once.
--
-- Numbers are little-endian.

local op = ARGV[1]

if op == 'tadd' then
  local e = ARGV[2]
  local fp = string.sub(e, 1, 8)
  local v = redis.call('GET', KEYS[1])
  if v then
    for i = 1, #v, 12 do
      if string.sub(v, i, i + 7) == fp then return 0 end
    end
  end
  redis.call('APPEND', KEYS[1], e)
  return 1
end

local list, counters, kind = KEYS[1], KEYS[2], ARGV[2]

local function count(name, d)
  if d ~= 0 then redis.call('HINCRBY', counters, kind .. ':' .. name, d) end
end

-- entry returns the document and group of entry i (from 0) of list value v.
local function entry(v, i)
  return struct.unpack('<I4I4', v, 6 + 8 * i)
end

-- add: ARGV[3] the entry (8 bytes), ARGV[4] PerGroup, ARGV[5] MaxLen,
-- ARGV[6] the commit guard (0: none). Returns 0 added, 1 capped, 2
-- stopped, 3 ignored, -1 applied before (the guard).
if op == 'add' then
  local e, perGroup, maxLen, seq = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
  local v = redis.call('GET', list)
  if not v then
    redis.call('SET', list, 'L' .. struct.pack('<I4', seq) .. e)
    count('keys', 1)
    count('entries', 1)
    return 0
  end
  local guard = string.sub(v, 2, 5)
  if seq > 0 then
    if struct.unpack('<I4', v, 2) >= seq then return -1 end
    guard = struct.pack('<I4', seq)
    redis.call('SETRANGE', list, 1, guard)
  end
  if string.sub(v, 1, 1) == 'S' then
    count('ignored', 1)
    return 3
  end
  local n = (#v - 5) / 8
  if perGroup > 0 and n >= perGroup then
    local _, group = struct.unpack('<I4I4', e)
    local c = 0
    for i = 0, n - 1 do
      local _, g = entry(v, i)
      if g == group then c = c + 1 end
    end
    if c >= perGroup then
      count('capped', 1)
      return 1
    end
  end
  if maxLen > 0 and n >= maxLen then
    redis.call('SET', list, 'S' .. guard)
    count('keys', -1)
    count('entries', -n)
    count('stops', 1)
    return 2
  end
  redis.call('APPEND', list, e)
  count('entries', 1)
  return 0
end

-- remove: ARGV[3] the document, ARGV[4] PerGroup. Returns {removed,
-- refill} (0 or 1 each).
if op == 'remove' then
  local id, perGroup = tonumber(ARGV[3]), tonumber(ARGV[4])
  local v = redis.call('GET', list)
  if not v or string.sub(v, 1, 1) == 'S' then return {0, 0} end
  local n = (#v - 5) / 8
  local at, group = -1, 0
  for i = 0, n - 1 do
    local d, g = entry(v, i)
    if d == id then
      at, group = i, g
      break
    end
  end
  if at < 0 then return {0, 0} end
  local refill = 0
  if perGroup > 0 then
    local c = 0
    for i = 0, n - 1 do
      local _, g = entry(v, i)
      if g == group then c = c + 1 end
    end
    if c >= perGroup then refill = 1 end
  end
  count('entries', -1)
  count('removed', 1)
  if n == 1 then
    redis.call('DEL', list)
    count('keys', -1)
  else
    redis.call('SET', list, string.sub(v, 1, 5 + 8 * at) .. string.sub(v, 6 + 8 * (at + 1)))
  end
  return {1, refill}
end

return redis.error_reply('lists.lua: unknown operation ' .. tostring(op))
