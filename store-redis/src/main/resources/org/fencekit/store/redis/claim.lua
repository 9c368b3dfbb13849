#!lua
-- claim: OrderStateMachine.claim on one order, atomically. Every value arrives as an argument.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index (by lease end)    KEYS[3]  the failed index
-- KEYS[4]  the order's mismatches (a hash)    KEYS[5]  the mismatches index (by recordedAt)
-- ARGV[1]  now, epoch ms, or '' for the server's TIME            ARGV[2]  now + lease, epoch ms, or '+<lease ms>'     ARGV[3]  the new nonce
-- ARGV[4]  the order's snapshot, packed (HashCodec.snapshot)        ARGV[5]  the order's tag (its index members' suffix)
-- Returns {outcome, the order's fields as HGETALL gives them}, outcome 'claimed', 'provisioned' or
-- 'inflight'; for a new order {'claimed', now}, as the caller knows the rest of what it wrote (a new
-- order, the hot path, costs one HGET, one HSET of 7 fields and one ZADD); for another order under
-- the key {'mismatch', the differing fields' names (OrderField.names), the order's fields}.
-- Another order (OrderStateMachine): a snapshot that differs from the stored one in product,
-- quantity, amount or currency (ignoring case; never the e-mail), whatever the status; nothing of
-- the order changes, and the claim is recorded in KEYS[4] (nonce -> stored and offered snapshot,
-- without e-mails, U+001E between) and KEYS[5] (at(now), tag, nonce) for the operator.
-- Layout 3 (Layout.java): the order's status decides whether it is claimed. A PENDING order holds
-- the claim fence, nonce, claimedAt, leaseExpiresAt; a settled one keeps them, and they say which
-- token settled it. A re-claim of a settled order (FAILED) copies that token to settledFence and
-- settledNonce, which a PENDING order answers as the last settle's.
-- A held claim is in the claims index at its lease's end; a FAILED order in the failed index at its
-- first failure: this script moves the order between them as it claims.
-- Every check comes before the first write: a script that stopped halfway would not roll back.
local order, claims, failed, tag = KEYS[1], KEYS[2], KEYS[3], ARGV[5]
local now, expires, nonce = ARGV[1], ARGV[2], ARGV[3]
now = nowOf(now) -- '' when the store takes time from the server
expires = expiresOf(expires, now)
local MAX_FENCE = 9007199254740991 -- 2^53 - 1: every fence stays an exact integer in Lua and JSON

if not redis.call('HGET', order, 'status') then
  redis.call('HSET', order, 'status', 'PENDING', 'fence', '1', 'nonce', nonce, 'claimedAt', now,
    'leaseExpiresAt', expires, 'updatedAt', now, 'snapshot', ARGV[4])
  redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
  return { 'claimed', now }
end

-- helpers.lua
local h = tableOf(redis.call('HGETALL', order))
local status, fence, leaseExpiresAt = h.status, h.fence, h.leaseExpiresAt
local held = status == 'PENDING'

-- This very call landed before and its reply was lost (a client retry): it is still the claim.
if held and h.nonce == nonce then
  return { 'claimed', flatOf(h) }
end
-- Another order under this key: decided before the status, written nowhere but the record of it.
local stored, offered, differing = split(h.snapshot), split(ARGV[4]), {}
if stored[2] ~= offered[2] then differing[#differing + 1] = 'product_id' end
if stored[3] ~= offered[3] then differing[#differing + 1] = 'quantity' end
if stored[4] ~= offered[4] then differing[#differing + 1] = 'amount_total' end
if string.lower(stored[5]) ~= string.lower(offered[5]) then differing[#differing + 1] = 'currency' end
if #differing > 0 then
  -- each recorded without its e-mail (the packed text up to it)
  local storedWithoutEmail = string.sub(h.snapshot, 1, #h.snapshot - #stored[6])
  local offeredWithoutEmail = string.sub(ARGV[4], 1, #ARGV[4] - #offered[6])
  redis.call('HSET', KEYS[4], nonce, storedWithoutEmail .. '\30' .. offeredWithoutEmail)
  redis.call('ZADD', KEYS[5], 0, at(now) .. '\31' .. tag .. '\31' .. nonce)
  return { 'mismatch', table.concat(differing, ','), flatOf(h) }
end

if status == 'PROVISIONED' then
  return { 'provisioned', flatOf(h) }
end
if held and tonumber(now) < tonumber(leaseExpiresAt) then
  return { 'inflight', flatOf(h) }
end

local next = tonumber(fence) + 1
if next > MAX_FENCE then
  return redis.error_reply('ERR fencekit: order ' .. order .. ' has used every fence up to 2^53 - 1')
end
next = string.format('%d', next)
local fields = { 'status', 'PENDING', 'fence', next, 'nonce', nonce, 'claimedAt', now,
  'leaseExpiresAt', expires, 'updatedAt', now }
if not held then -- FAILED: the token that failed it is the last settle's from now on
  h.settledFence, h.settledNonce = fence, h.nonce
  for _, v in ipairs({ 'settledFence', fence, 'settledNonce', h.nonce }) do
    fields[#fields + 1] = v
  end
end
redis.call('HSET', order, unpack(fields))
if held then
  redis.call('ZREM', claims, at(leaseExpiresAt) .. '\31' .. tag)
elseif h.failedSince then
  redis.call('ZREM', failed, at(h.failedSince) .. '\31' .. tag)
end
redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
h.status, h.fence, h.nonce = 'PENDING', next, nonce
h.claimedAt, h.leaseExpiresAt, h.updatedAt = now, expires, now
return { 'claimed', flatOf(h) }
