-- floor-complete: the complete of a minimal fenced compare-and-set (see floor-claim.lua). Reads 4
-- fields, writes 4; a superseded complete keeps its purchase as an orphan in a set, once.
-- KEYS[1]  the order's hash    KEYS[2]  its orphans (a set)
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  the item's id   ARGV[4]  payload
-- ARGV[5]  now, epoch ms
-- KEYS[3]  (the indexed floor) the held claims (see floor-claim.lua): a complete that settles the
--          order takes it out
-- Returns {'written'} or {'superseded'}.
local h = redis.call('HMGET', KEYS[1], 'status', 'fence', 'nonce', 'item')
if h[1] == 'PROVISIONED' and h[2] == ARGV[1] and h[3] == ARGV[2] and h[4] == ARGV[3] then
  return { 'written' } -- a replay of the complete that settled it
end
if h[1] ~= 'PENDING' or h[2] ~= ARGV[1] or h[3] ~= ARGV[2] then
  redis.call('SADD', KEYS[2], ARGV[1] .. ':' .. ARGV[2] .. ':' .. ARGV[3])
  return { 'superseded' }
end
redis.call('HSET', KEYS[1], 'status', 'PROVISIONED', 'item', ARGV[3], 'payload', ARGV[4],
  'updated', ARGV[5])
if KEYS[3] then
  redis.call('ZREM', KEYS[3], KEYS[1])
end
return { 'written' }
