-- floor-claim: the claim of a minimal fenced compare-and-set on one Redis hash, the floor the Redis
-- store's own script time is measured against (ScriptTime). Correct but bare: no snapshot, no
-- listing but the indexed floor's held claims, no retry detection, no record in the reply. Reads 4
-- fields, writes 4.
-- KEYS[1]  the order's hash    ARGV[1]  now, epoch ms    ARGV[2]  the lease's end, epoch ms
-- ARGV[3]  the new nonce
-- KEYS[2]  (the indexed floor) the held claims by lease end, a sorted set of order keys: what an
--          exact stuck-order listing walks; a claim puts its order there (or moves it)
-- Returns {'claimed', fence}, {'provisioned'} or {'inflight'}.
local h = redis.call('HMGET', KEYS[1], 'status', 'fence', 'nonce', 'lease')
if h[1] == 'PROVISIONED' then
  return { 'provisioned' }
end
if h[3] and tonumber(ARGV[1]) < tonumber(h[4]) then
  return { 'inflight' }
end
local fence = string.format('%d', (tonumber(h[2]) or 0) + 1)
redis.call('HSET', KEYS[1], 'status', 'PENDING', 'fence', fence, 'nonce', ARGV[3], 'lease', ARGV[2])
if KEYS[2] then
  redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
end
return { 'claimed', fence }
