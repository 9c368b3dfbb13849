#!lua
-- complete: OrderStateMachine.write for a complete on one order, atomically, the orphan included.
-- KEYS[1]  the order's hash    KEYS[2]  its orphans (a stream)    KEYS[3]  the orphans' identities (a set)
-- KEYS[4]  the claims index    KEYS[5]  the unreconciled orphans index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce          ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  providerOrderId     ARGV[5]  '1' if there is a payload, else '0'    ARGV[6]  payload
-- ARGV[7]  the order's tag     ARGV[8]  '1' if the caller holds the order as this token's claim left
--                                       it (a lean answer), else '0'
-- Returns {'unknown'} (nothing written), or {outcome, the order's fields as HGETALL gives them}, outcome 'written'
-- or 'superseded'; a complete that lands with ARGV[8] '1' answers {'written', now} instead (the
-- caller derives the rest: while a claim is current, only its own extend changes the order, and a
-- complete overwrites what an extend wrote). Every check comes before the first write. A new orphan
-- enters the unreconciled index (at its instant, then tag, fence, nonce, providerOrderId); a
-- complete that lands takes the claim out of the claims index. The hot path, a complete by the
-- current claim, reads 4 fields and writes with one HSET and one ZREM: the status says the claim is
-- settled, and the claim's fence and nonce, left in place, say by which token (claim.lua).
local order, orphans, orphanIds, claims, unreconciled = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local tag = ARGV[7]
local fence, nonce, now, itemId = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
now = nowOf(now) -- '' when the store takes time from the server
local hasPayload = ARGV[5] == '1'
local payload = hasPayload and ARGV[6] or false

local claim = redis.call('HMGET', order, 'status', 'fence', 'nonce', 'leaseExpiresAt')
if claim[1] == 'PENDING' and claim[2] == fence and claim[3] == nonce then
  -- The current claim: a PENDING order holds no item (PROVISIONED is final), so a complete without
  -- a payload has none to remove.
  if hasPayload then
    redis.call('HSET', order, 'status', 'PROVISIONED', 'itemId', itemId, 'itemPayload', payload,
      'updatedAt', now)
  else
    redis.call('HSET', order, 'status', 'PROVISIONED', 'itemId', itemId, 'updatedAt', now)
  end
  redis.call('ZREM', claims, at(claim[4]) .. '\31' .. tag)
  if ARGV[8] == '1' then
    return { 'written', now }
  end
  return { 'written', redis.call('HGETALL', order) }
end

-- helpers.lua
local h = tableOf(redis.call('HGETALL', order))
local status = h.status
if not status then
  return { 'unknown' }
end

-- A replay of the complete that settled the order: answered again, nothing changes.
if status == 'PROVISIONED' and h.fence == fence and h.nonce == nonce
    and h.itemId == itemId and (h.itemPayload or false) == payload then
  return { 'written', flatOf(h) }
end

-- Not the current claim: nothing changes, and the purchase is kept as an orphan, once per
-- (token, providerOrderId).
if redis.call('SADD', orphanIds, fence .. ':' .. nonce .. ':' .. itemId) == 1 then
  local entry = { 'claim', fence .. ':' .. nonce, 'providerOrderId', itemId, 'recordedAt', now }
  if hasPayload then
    entry[#entry + 1] = 'payload'
    entry[#entry + 1] = payload
  end
  redis.call('XADD', orphans, '*', unpack(entry))
  redis.call('ZADD', unreconciled, 0, orphanMember(now, tag, fence, nonce, itemId))
end
return { 'superseded', flatOf(h) }
