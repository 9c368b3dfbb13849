#!lua
-- extend: OrderStateMachine.write for an extend (a heartbeat) on one order, atomically.
-- KEYS[1]  the order's hash    KEYS[2]  the claims index
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  now + lease, epoch ms, or '+<lease ms>'    ARGV[5]  the order's tag
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. An extend is not a settle: there is no replay to answer. It moves the claim to
-- its new lease end in the claims index.
local order, claims, tag = KEYS[1], KEYS[2], ARGV[5]
-- An instant's place in an index: 16 digits of epoch ms (2^53 - 1 at most), or '-' and 2^53 + ms
-- before 1970, so that byte order is time order. Members are at(ms) .. '\31' .. the order's tag.
local function at(ms)
  ms = tonumber(ms)
  if ms >= 0 then return string.format('%016d', ms) end
  return '-' .. string.format('%016d', ms + 9007199254740992)
end
local fence, nonce, now, expires = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
-- now is '' when the store takes time from the server: Redis's TIME, read inside this script
if now == '' then
  local t = redis.call('TIME')
  now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end
-- expires is '+<lease ms>' with server time: now + lease
if string.sub(expires, 1, 1) == '+' then
  expires = string.format('%d', tonumber(now) + tonumber(string.sub(expires, 2)))
end

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce', 'leaseExpiresAt')
local status, claimFence, claimNonce = cur[1], cur[2], cur[3]
if not status then
  return { 'unknown' }
end
if claimFence ~= fence or claimNonce ~= nonce then
  return { 'superseded', redis.call('HGETALL', order) }
end

redis.call('HSET', order, 'leaseExpiresAt', expires, 'updatedAt', now)
redis.call('ZREM', claims, at(cur[4]) .. '\31' .. tag)
redis.call('ZADD', claims, 0, at(expires) .. '\31' .. tag)
return { 'written', redis.call('HGETALL', order) }
