#!lua
-- extend: OrderStateMachine.write for an extend (a heartbeat) on one order, atomically.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  now + lease, epoch ms, or '+<lease ms>'    ARGV[5]  the order's tag
-- ARGV[6]  '1' if the caller holds the order as this token's claim left it (a lean answer), else '0'
-- Returns {'unknown'} (nothing written), or {outcome, the order's fields as HGETALL gives them}, outcome 'written'
-- or 'superseded'; an extend that lands with ARGV[6] '1' answers {'written', now} instead (as
-- complete.lua does). An extend is not a settle: there is no replay to answer. It moves the claim
-- to its new lease end in the claims index.
local order, claims, tag = KEYS[1], KEYS[2], ARGV[5]
local fence, nonce, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
now = nowOf(now) -- '' when the store takes time from the server
expires = expiresOf(expires, now)

local claim = redis.call('HMGET', order, 'status', 'fence', 'nonce', 'leaseExpiresAt')
if claim[1] == 'PENDING' and claim[2] == fence and claim[3] == nonce then
  redis.call('HSET', order, 'leaseExpiresAt', expires, 'updatedAt', now)
  redis.call('ZREM', claims, at(claim[4]) .. '\31' .. tag)
  redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
  if ARGV[6] == '1' then
    return { 'written', now }
  end
  return { 'written', redis.call('HGETALL', order) }
end

-- helpers.lua
local h = redis.call('HGETALL', order)
if not tableOf(h).status then
  return { 'unknown' }
end
return { 'superseded', h }
