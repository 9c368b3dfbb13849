#!lua flags=no-writes,allow-cross-slot-keys
-- page: one page of a listing on one node, merged over that node's index keys, in byte order.
-- On a node there is one index key per listing; on a Cluster one per slot, and this runs once per
-- master with the keys of the slots it holds (KEYS[1], the first of them, routes the call there;
-- the rest are in ARGV, all on this master, which allow-cross-slot-keys lets one script read).
-- KEYS[1]  the first index key
-- ARGV[1]  start: '-', or '(' .. the member to start strictly after
-- ARGV[2]  stop: '+', or '(' .. a bound the members stay strictly below
-- ARGV[3]  limit          ARGV[4]  kind: 'orphans', 'stuck', 'failed' or 'mismatches'
-- ARGV[5]  the key prefix
-- ARGV[6]  'failed': the least failures that qualify an order, or '' (by age alone)
-- ARGV[7]  'failed': members below this bound qualify by age, or '' (by count alone)
-- ARGV[8]  how many members to look at in all before answering (a bound on the run's time)
-- ARGV[9..] the index keys, KEYS[1] first
-- Returns {resume, member, detail, member, detail, ...}: the first members that qualify, at most
-- limit, oldest first; detail is the order's HGETALL ('stuck', 'failed'), {has payload, payload}
-- ('orphans') or the mismatch's recorded snapshots ('mismatches', claim.lua). resume is '' when the listing is done or full, else the last member looked at (the
-- bound was reached first): call again from there. A member the order no longer bears out (the
-- order or orphan gone, the lease or status changed by a writer that keeps no index: a hand
-- edit) is passed over.
-- helpers.lua
local start, stop, limit, kind, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local minFailures = ARGV[6] ~= '' and tonumber(ARGV[6]) or false
local ageBound = ARGV[7] ~= '' and ARGV[7] or false
local budget = tonumber(ARGV[8])
local batch = math.min(limit, 32)

-- An instant's place in an index, as the writing scripts put it.

-- Byte order whatever the server's locale (Lua's '<' on strings follows strcoll).
local function lt(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- One cursor per index key with members in range, in a binary heap by its current member.
local heap = {}
local function head(c) return c.buf[c.pos] end
local function up(i)
  while i > 1 do
    local p = math.floor(i / 2)
    if not lt(head(heap[i]), head(heap[p])) then break end
    heap[i], heap[p] = heap[p], heap[i]
    i = p
  end
end
local function down(i)
  local n = #heap
  while true do
    local l, r, m = 2 * i, 2 * i + 1, i
    if l <= n and lt(head(heap[l]), head(heap[m])) then m = l end
    if r <= n and lt(head(heap[r]), head(heap[m])) then m = r end
    if m == i then break end
    heap[i], heap[m] = heap[m], heap[i]
    i = m
  end
end
local function fill(c, from)
  c.buf = redis.call('ZRANGE', c.key, from, stop, 'BYLEX', 'LIMIT', 0, batch)
  c.pos = 1
  return #c.buf > 0
end
for i = 9, #ARGV do
  local c = { key = ARGV[i] }
  if fill(c, start) then
    heap[#heap + 1] = c
    up(#heap)
  end
end

local out, looked, last, resume = { '' }, 0, nil, ''
while #heap > 0 and (#out - 1) / 2 < limit do
  if looked >= budget then
    resume = last
    break
  end
  local c = heap[1]
  local member = head(c)
  last = member
  looked = looked + 1
  if c.pos < #c.buf then
    c.pos = c.pos + 1
    down(1)
  elseif #c.buf == batch and fill(c, '(' .. member) then
    down(1)
  else
    heap[1] = heap[#heap]
    heap[#heap] = nil
    if #heap > 0 then down(1) end
  end
  local parts = split(member)
  local order = prefix .. '{' .. parts[2] .. '}'
  if kind == 'mismatches' then
    local recorded = redis.call('HGET', order .. ':mismatches', parts[3])
    if recorded then
      out[#out + 1] = member
      out[#out + 1] = recorded
    end
  elseif kind == 'orphans' then
    local claim = string.gsub(parts[3], '^0+', '') .. ':' .. parts[4]
    local itemId = string.sub(member, #parts[1] + #parts[2] + #parts[3] + #parts[4] + 5)
    local reconciled = redis.call('HEXISTS', order .. ':reconciled', claim .. ':' .. itemId) == 1
    local entry, fields = nil, nil
    if not reconciled then
      entry, fields = findOrphan(order .. ':orphans', claim, itemId)
    end
    if entry then
      out[#out + 1] = member
      out[#out + 1] = fields['payload'] and { '1', fields['payload'] } or { '0', '' }
    end
  else
    local qualifies = true
    if kind == 'failed' and not (ageBound and lt(member, ageBound)) then
      qualifies = minFailures
        and (tonumber(redis.call('HGET', order, 'failures')) or 0) >= minFailures or false
    end
    if qualifies then
      local flat = redis.call('HGETALL', order)
      local fields = {}
      for i = 1, #flat, 2 do fields[flat[i]] = flat[i + 1] end
      -- the entry must still say what the order says (a hand edit leaves entries behind: they are
      -- passed over)
      local current
      if kind == 'stuck' then
        current = fields['status'] == 'PENDING' and fields['leaseExpiresAt']
          and at(fields['leaseExpiresAt']) == parts[1]
      else
        current = fields['status'] == 'FAILED' and fields['failedSince']
          and at(fields['failedSince']) == parts[1]
      end
      if current then
        out[#out + 1] = member
        out[#out + 1] = flat
      end
    end
  end
end
out[1] = resume
return out
