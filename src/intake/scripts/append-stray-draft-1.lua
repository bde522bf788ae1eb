--[[
  Appends a draft that will never be submitted to the record's stray drafts, whoever holds the
  intake: a fact, not a checkpoint. Skips the letter the record names (it is not stray) and an
  entry already listed.

  Input:
    KEYS[1] the intake record (hash)

    ARGV[1] the entry (JSON)
    ARGV[2] its letter id ('' = unknown)
    ARGV[3] its draft request time ('' = none)

  Output:
    1  appended
    0  no record, the record's own letter, or listed already
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'letterId') == ARGV[2] then return 0 end
local list = {}
local current = redis.call('HGET', KEYS[1], 'strayDrafts')
if current then list = cjson.decode(current) end
for _, entry in ipairs(list) do
  if ARGV[2] ~= '' and entry.letterId == ARGV[2] then return 0 end
  if ARGV[2] == '' and ARGV[3] ~= '' and entry.letterId == nil and tostring(entry.requestedAt) == ARGV[3] then return 0 end
end
table.insert(list, cjson.decode(ARGV[1]))
redis.call('HSET', KEYS[1], 'strayDrafts', cjson.encode(list))
return 1
