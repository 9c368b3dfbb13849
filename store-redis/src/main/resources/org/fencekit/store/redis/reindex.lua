#!lua
-- reindex: puts one order of an older layout (layout 1: no indexes, no failure count) into the
-- indexes of layout 2, as the scripts of layout 2 would have kept them. Safe to run again.
-- KEYS[1]  the order's hash   KEYS[2]  its orphans (a stream)   KEYS[3]  its reconciliations (a hash)
-- KEYS[4]  the claims index   KEYS[5]  the failed index   KEYS[6]  the unreconciled orphans index
-- ARGV[1]  the order's tag
-- An order FAILED before the upgrade counts as failed once, since its last write (layout 1 kept
-- neither the count nor the first failure), as the SQL stores' V2 migration counts it.
-- It marks the order 'layout' '2', as claim.lua marks a new one. Returns the number of index
-- entries it made sure of.
local order, orphans, reconciled = KEYS[1], KEYS[2], KEYS[3]
local claims, failed, unreconciled, tag = KEYS[4], KEYS[5], KEYS[6], ARGV[1]

local h = redis.call('HMGET', order, 'status', 'claimNonce', 'leaseExpiresAt', 'failures',
  'failedSince', 'updatedAt')
if not h[1] then
  return 0
end
redis.call('HSET', order, 'layout', '2')
local n = 0
if h[2] then
  redis.call('ZADD', claims, 0, at(h[3]) .. '\31' .. tag)
  n = n + 1
end
if h[1] == 'FAILED' then
  local since = h[5]
  if not h[4] then
    since = h[6]
    redis.call('HSET', order, 'failures', '1', 'failedSince', since)
  end
  redis.call('ZADD', failed, 0, at(since) .. '\31' .. tag)
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
