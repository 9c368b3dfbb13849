#!lua
-- extend: OrderStateMachine.write for an extend (a heartbeat) on one order, atomically.
-- KEYS[1]  the order's hash
-- ARGV[1]  the token's fence   ARGV[2]  the token's nonce   ARGV[3]  now, epoch ms, or '' for the server's TIME
-- ARGV[4]  now + lease, epoch ms, or '+<lease ms>'
-- Returns {'unknown'} (nothing written), or {outcome, HGETALL of the order}, outcome 'written'
-- or 'superseded'. An extend is not a settle: there is no replay to answer.
local order = KEYS[1]
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

local cur = redis.call('HMGET', order, 'status', 'claimFence', 'claimNonce')
local status, claimFence, claimNonce = cur[1], cur[2], cur[3]
if not status then
  return { 'unknown' }
end
if claimFence ~= fence or claimNonce ~= nonce then
  return { 'superseded', redis.call('HGETALL', order) }
end

redis.call('HSET', order, 'leaseExpiresAt', expires, 'updatedAt', now)
return { 'written', redis.call('HGETALL', order) }
