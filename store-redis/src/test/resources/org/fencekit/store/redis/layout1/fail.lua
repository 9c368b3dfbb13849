#!lua
-- fail: OrderStateMachine.write for a fail on one order, atomically.
-- KEYS[1]  the order's hash
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME   ARGV[4]  error
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. Every check comes before the first write.
local order = KEYS[1]
local fence, nonce, now, err = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
-- now is '' when the store takes time from the server: Redis's TIME, read inside this script
if now == '' then
  local t = redis.call('TIME')
  now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce',
  'settledFence', 'settledNonce', 'lastError')
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

redis.call('HSET', order, 'status', 'FAILED', 'lastError', err,
  'settledFence', fence, 'settledNonce', nonce, 'updatedAt', now)
redis.call('HDEL', order, 'claimFence', 'claimNonce', 'claimedAt', 'leaseExpiresAt',
  'itemId', 'itemPayload')
return { 'written', redis.call('HGETALL', order) }
