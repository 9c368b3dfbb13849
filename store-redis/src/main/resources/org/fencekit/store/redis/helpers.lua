-- helpers: what the store's scripts share beyond prelude.lua, put by LuaScript where a script has
-- the line '-- helpers.lua' (after its hot path), so that each of these is written once.

-- The unreconciled index member of an orphan: its instant, the order's tag, the token's fence (its
-- decimal text padded to 19 digits, as text: a token can carry any fence up to 2^63 - 1, which a
-- Lua number would round) and nonce, and the provider's id, '\31' between them.
local function orphanMember(recordedAt, tag, fence, nonce, itemId)
  return at(recordedAt) .. '\31' .. tag .. '\31' .. string.rep('0', 19 - #fence) .. fence
    .. '\31' .. nonce .. '\31' .. itemId
end

-- The parts of a text joined by '\31' (an index member, a packed snapshot), in order.
local function split(text)
  local parts, from = {}, 1
  while true do
    local sep = string.find(text, '\31', from, true)
    if not sep then
      parts[#parts + 1] = string.sub(text, from)
      return parts
    end
    parts[#parts + 1] = string.sub(text, from, sep - 1)
    from = sep + 1
  end
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
