#!lua
-- fail: OrderStateMachine.write for a fail on one order, atomically.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index    KEYS[3]  the failed index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME   ARGV[4]  error
-- ARGV[5]  the order's tag
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. Every check comes before the first write. A fail that lands counts one more
-- failure (failedSince stays the first), takes the claim out of the claims index and puts the order
-- in the failed index at its first failure.
local order, claims, failed, tag = KEYS[1], KEYS[2], KEYS[3], ARGV[5]
local fence, nonce, now, err = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
now = nowOf(now) -- '' when the store takes time from the server

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce',
  'settledFence', 'settledNonce', 'lastError', 'leaseExpiresAt', 'failures', 'failedSince')
local status, claimFence, claimNonce = cur[1], cur[2], cur[3]
if not status then
  return { 'unknown' }
end

-- A replay of the fail that settled the order, while it still shows that failure.
if cur[4] == fence and cur[5] == nonce and status == 'FAILED' and cur[6] == err then
  return { 'written', redis.call('HGETALL', order) }
end

if claimFence ~= fence or claimNonce ~= nonce then
  return { 'superseded', redis.call('HGETALL', order) }
end

local failedSince = cur[9] or now
redis.call('HSET', order, 'status', 'FAILED', 'lastError', err,
  'settledFence', fence, 'settledNonce', nonce, 'updatedAt', now,
  'failures', string.format('%d', (tonumber(cur[8]) or 0) + 1), 'failedSince', failedSince)
redis.call('HDEL', order, 'claimFence', 'claimNonce', 'claimedAt', 'leaseExpiresAt',
  'itemId', 'itemPayload')
redis.call('ZREM', claims, at(cur[7]) .. '\31' .. tag)
redis.call('ZADD', failed, 0, at(failedSince) .. '\31' .. tag)
return { 'written', redis.call('HGETALL', order) }
