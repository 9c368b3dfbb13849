-- prelude: the helpers every writing script's hot path uses, put by LuaScript after each script's
-- first line, so that each is written once. The helpers only the other paths use are in
-- helpers.lua, put where a script has the line '-- helpers.lua': a local function costs its
-- closure on every run that reaches its definition, so a hot path that returns before that line
-- does not pay for them.

-- An instant's place in an index: 16 digits of epoch ms (2^53 - 1 at most), or '-' and 2^53 + ms
-- before 1970, so that byte order is time order. ms is the decimal text of an integer, as every
-- script argument and stored field holds it (padded as text: string.format costs more). A claims
-- or failed index member is at(ms) .. '\31' .. the order's tag; an orphan's is orphanMember(...).
local function at(ms)
  if string.byte(ms, 1) ~= 45 then return string.rep('0', 16 - #ms) .. ms end -- 45: '-'
  return '-' .. string.format('%016d', tonumber(ms) + 9007199254740992)
end

-- A script's time argument: epoch ms as given, or '' for the server's TIME, read here.
local function nowOf(arg)
  if arg ~= '' then return arg end
  local t = redis.call('TIME')
  return string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
end

-- A lease's end: epoch ms as given, or '+<lease ms>' (server time) added to now.
local function expiresOf(arg, now)
  if string.sub(arg, 1, 1) ~= '+' then return arg end
  return string.format('%d', tonumber(now) + tonumber(string.sub(arg, 2)))
end
