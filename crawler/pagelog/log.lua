-- One shard of a page log (package pagelog): every key shares the hash
-- tag of KEYS[1], so each call is one atomic step on one master.
-- ARGV[1] names the operation.
--
-- Keys of shard s of K, chunks of B numbers a key (S = "{prefix/s}:"):
--   S:trim  the shard's trim mark: its entries below it are deleted, and
--           an append below it is refused
--   S:C     hash n -> entry, for the numbers n ≡ s (mod K) with
--           floor(n / (K·B)) = C; an entry is its kind, one byte ('p' a
--           page entry, 'n' a note), then its payload

-- append: KEYS[1] the chunk of n, KEYS[2] its shard's trim mark; ARGV[2]
-- n, ARGV[3] the entry (its kind, then its payload: the script does not
-- look at it). Returns 1 if the entry is new, 0 if n has one already of
-- either kind (it is kept), -1 if n is below the trim mark.
if ARGV[1] == 'append' then
  if tonumber(ARGV[2]) < tonumber(redis.call('GET', KEYS[2]) or '0') then return -1 end
  return redis.call('HSETNX', KEYS[1], ARGV[2], ARGV[3])
end

-- trim: KEYS[1] the shard's trim mark; ARGV[2] below, ARGV[3] s, ARGV[4]
-- K, ARGV[5] B, ARGV[6] S. Deletes the shard's entries below `below`
-- (whole chunks at once) and raises the mark. Returns the entries'
-- chunks deleted.
if ARGV[1] == 'trim' then
  local old = tonumber(redis.call('GET', KEYS[1]) or '0')
  local below = tonumber(ARGV[2])
  if below <= old then return 0 end
  local s, k, b, pfx = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
  local span = k * b
  local deleted = 0
  for c = math.floor(old / span), math.floor((below - 1) / span) do
    local key = pfx .. c
    if (c + 1) * span <= below then
      deleted = deleted + redis.call('DEL', key)
    else
      for n = c * span + s, below - 1, k do redis.call('HDEL', key, n) end
    end
  end
  redis.call('SET', KEYS[1], below)
  return deleted
end

return redis.error_reply('log.lua: unknown operation ' .. tostring(ARGV[1]))
