#!lua
-- reindex: brings one order of an older layout into layout 3 (Layout.java), as the scripts of
-- layout 3 would have kept it, and makes sure of its index entries. Safe to run again, and on an
-- order of layout 3 (then it only makes sure of the entries).
-- KEYS[1]  the order's hash   KEYS[2]  its orphans (a stream)   KEYS[3]  its reconciliations (a hash)
-- KEYS[4]  the claims index   KEYS[5]  the failed index   KEYS[6]  the unreconciled orphans index
-- ARGV[1]  the order's tag
-- Layouts 1 and 2 keep a claim in claimFence and claimNonce, deleted when it settles, the settling
-- token in settledFence and settledNonce, and the snapshot in six fields; layout 3 keeps the claim's
-- fence and nonce in fence and nonce, a settled order's status says the claim is over (claim.lua),
-- and the snapshot is one field (HashCodec.snapshot). Layout 1 kept
-- no indexes and no failure count: an order FAILED before the upgrade counts as failed once, since
-- its last write, as the SQL stores' V2 migration counts it. Returns the number of index entries it
-- made sure of.
-- helpers.lua
local order, orphans, reconciled = KEYS[1], KEYS[2], KEYS[3]
local claims, failed, unreconciled, tag = KEYS[4], KEYS[5], KEYS[6], ARGV[1]

local h = redis.call('HMGET', order, 'status', 'nonce', 'claimNonce', 'leaseExpiresAt', 'failures',
  'failedSince', 'updatedAt', 'settledFence', 'settledNonce', 'fence')
local status = h[1]
if not status then
  return 0
end
if not h[2] then -- layout 1 or 2
  if status == 'PENDING' then
    redis.call('HSET', order, 'nonce', h[3])
  elseif h[8] ~= h[10] then -- only the current fence's claim settles: changed outside fencekit
    return redis.error_reply('ERR fencekit: order ' .. order .. ' is ' .. status
      .. ' by fence ' .. tostring(h[8]) .. ' but its fence is ' .. tostring(h[10])
      .. ': no fencekit wrote that; mend the order by hand, then upgrade again')
  else -- fence and nonce say which token settled it
    redis.call('HSET', order, 'nonce', h[9])
    redis.call('HDEL', order, 'settledFence', 'settledNonce')
  end
  local snapshot = redis.call('HMGET', order, 'sessionId', 'productId', 'quantity', 'amountTotal',
    'currency', 'customerEmail')
  snapshot[6] = snapshot[6] or '' -- as HashCodec.snapshot packs it
  redis.call('HSET', order, 'snapshot', table.concat(snapshot, '\31'))
  redis.call('HDEL', order, 'claimFence', 'claimNonce', 'layout', 'sessionId', 'productId',
    'quantity', 'amountTotal', 'currency', 'customerEmail')
  if status == 'FAILED' and not h[5] then
    h[6] = h[7]
    redis.call('HSET', order, 'failures', '1', 'failedSince', h[6])
  end
end
local n = 0
if status == 'PENDING' then
  redis.call('ZADD', claims, 0, at(h[4]) .. '\31' .. tag)
  n = n + 1
end
if status == 'FAILED' then
  redis.call('ZADD', failed, 0, at(h[6]) .. '\31' .. tag)
  n = n + 1
end
for _, entry in ipairs(redis.call('XRANGE', orphans, '-', '+')) do
  local f = entry[2]
  local fields = {}
  for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
  local claim = fields['claim']
  local colon = string.find(claim, ':', 1, true)
  if redis.call('HEXISTS', reconciled, claim .. ':' .. fields['providerOrderId']) == 0 then
    redis.call('ZADD', unreconciled, 0, orphanMember(fields['recordedAt'], tag,
      string.sub(claim, 1, colon - 1), string.sub(claim, colon + 1), fields['providerOrderId']))
    n = n + 1
  end
end
return n
