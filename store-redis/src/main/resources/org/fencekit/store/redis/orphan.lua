#!lua flags=no-writes
-- orphan: one orphan by its identity, with its reconciliation if it has one.
-- KEYS[1]  the order's orphans (a stream)     KEYS[2]  the reconciliations (a hash)
-- ARGV[1]  the orphan's identity '<fence>:<nonce>:<providerOrderId>'   ARGV[2]  '<fence>:<nonce>'
-- ARGV[3]  providerOrderId
-- Returns {'unknown'}, or {'found', the orphan's stream entry fields, the reconciliation or false}.
-- helpers.lua
local entry = findOrphan(KEYS[1], ARGV[2], ARGV[3])
if not entry then
  return { 'unknown' }
end
return { 'found', entry, redis.call('HGET', KEYS[2], ARGV[1]) }
