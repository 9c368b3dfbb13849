#!lua flags=no-writes
-- orphan: one orphan by its identity, with its reconciliation if it has one.
-- KEYS[1]  the order's orphans (a stream)     KEYS[2]  the reconciliations (a hash)
-- ARGV[1]  the orphan's identity '<fence>:<nonce>:<providerOrderId>'   ARGV[2]  '<fence>:<nonce>'
-- ARGV[3]  providerOrderId
-- Returns {'unknown'}, or {'found', the orphan's stream entry fields, the reconciliation or false}.
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
  local f = entry[2]
  local fields = {}
  for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
  if fields['claim'] == ARGV[2] and fields['providerOrderId'] == ARGV[3] then
    return { 'found', f, redis.call('HGET', KEYS[2], ARGV[1]) }
  end
end
return { 'unknown' }
