#!lua
-- fail: OrderStateMachine.write for a fail on one order, atomically.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index    KEYS[3]  the failed index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME   ARGV[4]  error
-- ARGV[5]  the order's tag
-- ARGV[6]  '1' if the caller holds the order as this token's claim left it (a lean answer), else '0'
-- Returns {'unknown'} (nothing written), or {outcome, the order's fields as HGETALL gives them}, outcome 'written'
-- or 'superseded'; a fail that lands with ARGV[6] '1' answers {'written', now} instead (as
-- complete.lua does). Every check comes before the first write. A fail that lands counts one more
-- failure (failedSince stays the first), takes the claim out of the claims index and puts the order
-- in the failed index at its first failure.
local order, claims, failed, tag = KEYS[1], KEYS[2], KEYS[3], ARGV[5]
local fence, nonce, now, err = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
now = nowOf(now) -- '' when the store takes time from the server

local claim = redis.call('HMGET', order, 'status', 'fence', 'nonce', 'leaseExpiresAt', 'failures',
  'failedSince')
if claim[1] == 'PENDING' and claim[2] == fence and claim[3] == nonce then
  -- The current claim (a settle makes the order settled, so this is no replay). A PENDING order
  -- holds no item; the claim's fence and nonce stay, and say which token failed it.
  local failedSince = claim[6] or now
  local failures = string.format('%d', (tonumber(claim[5]) or 0) + 1)
  redis.call('HSET', order, 'status', 'FAILED', 'lastError', err, 'updatedAt', now,
    'failures', failures, 'failedSince', failedSince)
  redis.call('ZREM', claims, at(claim[4]) .. '\31' .. tag)
  redis.call('ZADD', failed, 0, at(failedSince) .. '\31' .. tag)
  if ARGV[6] == '1' then
    return { 'written', now }
  end
  return { 'written', redis.call('HGETALL', order) }
end

-- helpers.lua
local h = tableOf(redis.call('HGETALL', order))
if not h.status then
  return { 'unknown' }
end

-- A replay of the fail that settled the order, while it still shows that failure.
if h.status == 'FAILED' and h.fence == fence and h.nonce == nonce and h.lastError == err then
  return { 'written', flatOf(h) }
end
return { 'superseded', flatOf(h) }
