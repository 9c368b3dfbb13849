#!lua
-- reconcile: marks one orphan reconciled unless it is already, atomically, and answers it as stored.
-- KEYS[1]  the order's orphans (a stream)     KEYS[2]  the orphans' identities (a set)
-- KEYS[3]  the reconciliations (a hash: identity -> '<epoch ms>:<note>')
-- KEYS[4]  the unreconciled orphans index
-- ARGV[1]  the orphan's identity, '<fence>:<nonce>:<providerOrderId>' as complete.lua records it
-- ARGV[2]  '<fence>:<nonce>'   ARGV[3]  providerOrderId   ARGV[4]  '<epoch ms>:<note>'   ARGV[5]  the order's tag
-- Returns {'unknown'} (no such orphan: nothing written), or {'found', the orphan's stream entry
-- fields, the reconciliation as stored}: the first one recorded, whoever recorded it. Nothing else
-- changes: the orphan's entry stays, and it leaves the unreconciled index.
-- helpers.lua
local orphans, orphanIds, reconciled, unreconciled = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local identity, claim, itemId, mark, tag = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

if redis.call('SISMEMBER', orphanIds, identity) == 0 then
  return { 'unknown' }
end
local entry, fields = findOrphan(orphans, claim, itemId)
if not entry then
  return redis.error_reply('ERR fencekit: orphan ' .. identity .. ' of ' .. orphans
    .. ' is in its identities but not in its stream; the keys were changed outside this store')
end
if redis.call('HSETNX', reconciled, identity, mark) == 1 then
  local colon = string.find(claim, ':', 1, true)
  redis.call('ZREM', unreconciled, orphanMember(fields['recordedAt'], tag,
    string.sub(claim, 1, colon - 1), string.sub(claim, colon + 1), itemId))
end
return { 'found', entry, redis.call('HGET', reconciled, identity) }
