#!lua
-- claim: OrderStateMachine.claim on one order, atomically. Every value arrives as an argument.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index (by lease end)    KEYS[3]  the failed index
-- ARGV[1]  now, epoch ms, or '' for the server's TIME            ARGV[2]  now + lease, epoch ms, or '+<lease ms>'     ARGV[3]  the new nonce
-- ARGV[4]  sessionId                ARGV[5]  productId                 ARGV[6]  quantity
-- ARGV[7]  customerEmail, '' if none (a real one is never blank)       ARGV[8]  amountTotal
-- ARGV[9]  currency                 ARGV[10] the order's tag (its index members' suffix)
-- Returns {outcome, the order's fields as HGETALL gives them}, outcome 'claimed', 'provisioned' or
-- 'inflight'; for a new order {'claimed', now}, as the caller knows the rest of what it wrote (a new
-- order, the hot path, costs one HGET, one HSET and one ZADD).
-- A held claim is in the claims index at its lease's end; a FAILED order in the failed index at its
-- first failure: this script moves the order between them as it claims. A new order is marked
-- 'layout' '2', so that orders of this layout are known as such if the version key is lost.
-- Every check comes before the first write: a script that stopped halfway would not roll back.
local order, claims, failed, tag = KEYS[1], KEYS[2], KEYS[3], ARGV[10]
local now, expires, nonce = ARGV[1], ARGV[2], ARGV[3]
now = nowOf(now) -- '' when the store takes time from the server
expires = expiresOf(expires, now)
local MAX_FENCE = 9007199254740991 -- 2^53 - 1: every fence stays an exact integer in Lua and JSON

if not redis.call('HGET', order, 'status') then
  local fields = {
    'sessionId', ARGV[4], 'productId', ARGV[5], 'quantity', ARGV[6], 'amountTotal', ARGV[8],
    'currency', ARGV[9], 'status', 'PENDING', 'fence', '1', 'claimFence', '1',
    'claimNonce', nonce, 'claimedAt', now, 'leaseExpiresAt', expires, 'updatedAt', now,
    'layout', '2' }
  if ARGV[7] ~= '' then
    fields[#fields + 1] = 'customerEmail'
    fields[#fields + 1] = ARGV[7]
  end
  redis.call('HSET', order, unpack(fields))
  redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
  return { 'claimed', now }
end

local h = tableOf(redis.call('HGETALL', order))
local status, fence, claimNonce, leaseExpiresAt = h.status, h.fence, h.claimNonce, h.leaseExpiresAt

-- This very call landed before and its reply was lost (a client retry): it is still the claim.
if claimNonce == nonce then
  return { 'claimed', flatOf(h) }
end
if status == 'PROVISIONED' then
  return { 'provisioned', flatOf(h) }
end
if claimNonce and tonumber(now) < tonumber(leaseExpiresAt) then
  return { 'inflight', flatOf(h) }
end

local next = tonumber(fence) + 1
if next > MAX_FENCE then
  return redis.error_reply('ERR fencekit: order ' .. ARGV[4] .. ' has used every fence up to 2^53 - 1')
end
next = string.format('%d', next)
redis.call('HSET', order, 'status', 'PENDING', 'fence', next, 'claimFence', next,
  'claimNonce', nonce, 'claimedAt', now, 'leaseExpiresAt', expires, 'updatedAt', now)
if claimNonce then
  redis.call('ZREM', claims, at(leaseExpiresAt) .. '\31' .. tag)
end
if status == 'FAILED' and h.failedSince then
  redis.call('ZREM', failed, at(h.failedSince) .. '\31' .. tag)
end
redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
h.status, h.fence, h.claimFence, h.claimNonce = 'PENDING', next, next, nonce
h.claimedAt, h.leaseExpiresAt, h.updatedAt = now, expires, now
return { 'claimed', flatOf(h) }
