#!lua
-- claim: OrderStateMachine.claim on one order, atomically. Every value arrives as an argument.
-- KEYS[1]  the order's hash
-- ARGV[1]  now, epoch ms, or '' for the server's TIME            ARGV[2]  now + lease, epoch ms, or '+<lease ms>'     ARGV[3]  the new nonce
-- ARGV[4]  sessionId                ARGV[5]  productId                 ARGV[6]  quantity
-- ARGV[7]  customerEmail, '' if none (a real one is never blank)       ARGV[8]  amountTotal
-- ARGV[9]  currency
-- Returns {outcome, HGETALL of the order}, outcome 'claimed', 'provisioned' or 'inflight'.
-- Every check comes before the first write: a script that stopped halfway would not roll back.
local order = KEYS[1]
local now, expires, nonce = ARGV[1], ARGV[2], ARGV[3]
-- now is '' when the store takes time from the server: Redis's TIME, read inside this script
if now == '' then
  local t = redis.call('TIME')
  now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
-- expires is '+<lease ms>' with server time: now + lease
if string.sub(expires, 1, 1) == '+' then
  expires = string.format('%d', tonumber(now) + tonumber(string.sub(expires, 2)))
end
local MAX_FENCE = 9007199254740991 -- 2^53 - 1: every fence stays an exact integer in Lua and JSON

local cur = redis.call('HMGET', order, 'status', 'fence', 'claimNonce', 'leaseExpiresAt')
local status, fence, claimNonce, leaseExpiresAt = cur[1], cur[2], cur[3], cur[4]

if not status then
  local fields = {
    'sessionId', ARGV[4], 'productId', ARGV[5], 'quantity', ARGV[6], 'amountTotal', ARGV[8],
    'currency', ARGV[9], 'status', 'PENDING', 'fence', '1', 'claimFence', '1',
    'claimNonce', nonce, 'claimedAt', now, 'leaseExpiresAt', expires, 'updatedAt', now }
  if ARGV[7] ~= '' then
    fields[#fields + 1] = 'customerEmail'
    fields[#fields + 1] = ARGV[7]
  end
  redis.call('HSET', order, unpack(fields))
  return { 'claimed', redis.call('HGETALL', order) }
end

-- This very call landed before and its reply was lost (a client retry): it is still the claim.
if claimNonce == nonce then
  return { 'claimed', redis.call('HGETALL', order) }
end
if status == 'PROVISIONED' then
  return { 'provisioned', redis.call('HGETALL', order) }
end
if claimNonce and tonumber(now) < tonumber(leaseExpiresAt) then
  return { 'inflight', redis.call('HGETALL', order) }
end

local next = tonumber(fence) + 1
if next > MAX_FENCE then
  return redis.error_reply('ERR fencekit: order ' .. ARGV[4] .. ' has used every fence up to 2^53 - 1')
end
next = string.format('%d', next)
redis.call('HSET', order, 'status', 'PENDING', 'fence', next, 'claimFence', next,
  'claimNonce', nonce, 'claimedAt', now, 'leaseExpiresAt', expires, 'updatedAt', now)
return { 'claimed', redis.call('HGETALL', order) }
