-- prelude: what the store's scripts share, put by LuaScript after each script's first line, so
-- that each of these is written once.

-- An instant's place in an index: 16 digits of epoch ms (2^53 - 1 at most), or '-' and 2^53 + ms
-- before 1970, so that byte order is time order. A claims or failed index member is at(ms) .. '\31'
-- .. the order's tag; an orphan's is orphanMember(...).
local function at(ms)
  ms = tonumber(ms)
  if ms >= 0 then return string.format('%016d', ms) end
  return '-' .. string.format('%016d', ms + 9007199254740992)
end

-- The unreconciled index member of an orphan: its instant, the order's tag, the token's fence (its
-- decimal text padded to 19 digits, as text: a token can carry any fence up to 2^63 - 1, which a
-- Lua number would round) and nonce, and the provider's id, '\31' between them.
local function orphanMember(recordedAt, tag, fence, nonce, itemId)
  return at(recordedAt) .. '\31' .. tag .. '\31' .. string.rep('0', 19 - #fence) .. fence
    .. '\31' .. nonce .. '\31' .. itemId
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

-- An order's hash as a table (from HGETALL's flat reply), and back to the flat list a script
-- answers with: a script reads the order once and answers what it wrote without reading again.
local function tableOf(flat)
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end
local function flatOf(t)
  local out = {}
  for k, v in pairs(t) do
    out[#out + 1] = k
    out[#out + 1] = v
  end
  return out
end

-- The stream entry of an orphan ('<fence>:<nonce>', providerOrderId): its flat fields and a table
-- of them, or nil.
local function findOrphan(stream, claim, itemId)
  for _, entry in ipairs(redis.call('XRANGE', stream, '-', '+')) do
    local f = entry[2]
    local fields = {}
    for i = 1, #f, 2 do fields[f[i]] = f[i + 1] end
    if fields['claim'] == claim and fields['providerOrderId'] == itemId then
      return f, fields
    end
  end
  return nil
end
