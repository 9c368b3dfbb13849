#!lua
-- extend: OrderStateMachine.write for an extend (a heartbeat) on one order, atomically.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  now + lease, epoch ms, or '+<lease ms>'    ARGV[5]  the order's tag
-- Returns {'unknown'} (nothing written), or {outcome, the order's fields as HGETALL gives them}, outcome 'written'
-- or 'superseded'. An extend is not a settle: there is no replay to answer. It moves the claim to
-- its new lease end in the claims index.
local order, claims, tag = KEYS[1], KEYS[2], ARGV[5]
local fence, nonce, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
now = nowOf(now) -- '' when the store takes time from the server
expires = expiresOf(expires, now)

local h = tableOf(redis.call('HGETALL', order))
local status, claimFence, claimNonce = h.status, h.claimFence, h.claimNonce
if not status then
  return { 'unknown' }
end
if claimFence ~= fence or claimNonce ~= nonce then
  return { 'superseded', flatOf(h) }
end

redis.call('HSET', order, 'leaseExpiresAt', expires, 'updatedAt', now)
redis.call('ZREM', claims, at(h.leaseExpiresAt) .. '\31' .. tag)
redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
h.leaseExpiresAt, h.updatedAt = expires, now
return { 'written', flatOf(h) }
