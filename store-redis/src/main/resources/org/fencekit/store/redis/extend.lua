#!lua
-- extend: OrderStateMachine.write for an extend (a heartbeat) on one order, atomically.
-- KEYS[1]  the order's hash
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms
-- ARGV[4]  now + lease, epoch ms
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. An extend is not a settle: there is no replay to answer.
local order = KEYS[1]
local fence, nonce, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce')
local status, claimFence, claimNonce = cur[1], cur[2], cur[3]
if not status then
  return { 'unknown' }
end
if claimFence ~= fence or claimNonce ~= nonce then
  return { 'superseded', redis.call('HGETALL', order) }
end

redis.call('HSET', order, 'leaseExpiresAt', expires, 'updatedAt', now)
return { 'written', redis.call('HGETALL', order) }
