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
local orphans, orphanIds, reconciled, unreconciled = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local identity, claim, itemId, mark, tag = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local function at(ms)
  ms = tonumber(ms)
  if ms >= 0 then return string.format('%016d', ms) end
  return '-' .. string.format('%016d', ms + 9007199254740992)
end

if redis.call('SISMEMBER', orphanIds, identity) == 0 then
  return { 'unknown' }
end
local found = false
for _, entry in ipairs(redis.call('XRANGE', orphans, '-', '+')) do
  local f = entry[2]
  local fields = {}
  for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
  if fields['claim'] == claim and fields['providerOrderId'] == itemId then
    found = { f, fields['recordedAt'] }
    break
  end
end
if not found then
  return redis.error_reply('ERR fencekit: orphan ' .. identity .. ' of ' .. orphans
    .. ' is in its identities but not in its stream; the keys were changed outside this store')
end
if redis.call('HSETNX', reconciled, identity, mark) == 1 then
  local colon = string.find(claim, ':', 1, true)
  redis.call('ZREM', unreconciled, at(found[2]) .. '\31' .. tag .. '\31'
    .. string.format('%016d', tonumber(string.sub(claim, 1, colon - 1))) .. '\31'
    .. string.sub(claim, colon + 1) .. '\31' .. itemId)
end
return { 'found', found[1], redis.call('HGET', reconciled, identity) }
