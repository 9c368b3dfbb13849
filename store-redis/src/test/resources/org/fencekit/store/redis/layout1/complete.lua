#!lua
-- complete: OrderStateMachine.write for a complete on one order, atomically, the orphan included.
-- KEYS[1]  the order's hash    KEYS[2]  its orphans (a stream)    KEYS[3]  the orphans' identities (a set)
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce          ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  providerOrderId     ARGV[5]  '1' if there is a payload, else '0'    ARGV[6]  payload
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. Every check comes before the first write.
local order, orphans, orphanIds = KEYS[1], KEYS[2], KEYS[3]
local fence, nonce, now, itemId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
-- now is '' when the store takes time from the server: Redis's TIME, read inside this script
if now == '' then
  local t = redis.call('TIME')
  now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
local hasPayload = ARGV[5] == '1'
local payload = hasPayload and ARGV[6] or false

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce',
  'settledFence', 'settledNonce', 'itemId', 'itemPayload')
local status, claimFence, claimNonce = cur[1], cur[2], cur[3]
if not status then
  return { 'unknown' }
end

-- A replay of the complete that settled the order: answered again, nothing changes.
if cur[4] == fence and cur[5] == nonce and status == 'PROVISIONED'
    and cur[6] == itemId and cur[7] == payload then
  return { 'written', redis.call('HGETALL', order) }
end

-- Not the current claim: nothing changes, and the purchase is kept as an orphan, once per
-- (token, providerOrderId).
if claimFence ~= fence or claimNonce ~= nonce then
  if redis.call('SADD', orphanIds, fence .. ':' .. nonce .. ':' .. itemId) == 1 then
    local entry = { 'claim', fence .. ':' .. nonce, 'providerOrderId', itemId, 'recordedAt', now }
    if hasPayload then
      entry[#entry + 1] = 'payload'
      entry[#entry + 1] = payload
    end
    redis.call('XADD', orphans, '*', unpack(entry))
  end
  return { 'superseded', redis.call('HGETALL', order) }
end

redis.call('HSET', order, 'status', 'PROVISIONED', 'itemId', itemId,
  'settledFence', fence, 'settledNonce', nonce, 'updatedAt', now)
if hasPayload then
  redis.call('HSET', order, 'itemPayload', payload)
else
  redis.call('HDEL', order, 'itemPayload')
end
redis.call('HDEL', order, 'claimFence', 'claimNonce', 'claimedAt', 'leaseExpiresAt')
return { 'written', redis.call('HGETALL', order) }
