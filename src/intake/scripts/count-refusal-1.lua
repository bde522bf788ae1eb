--[[
  Counts one refused message (refusal-counts.ts) in its window's hash, in one step so that
  concurrent listeners never lose a count nor pass the window's bound on distinct keys. A key
  not yet in a full window is counted in the window's "other" field instead: never dropped.

  Input:
    KEYS[1] the window's counts (hash: key (JSON) -> {count, firstSeen, lastSeen, sample} (JSON))

    ARGV[1] the refusal's key (JSON)
    ARGV[2] when it was refused (ms since the epoch)
    ARGV[3] its sample (JSON), kept with the key's first count
    ARGV[4] distinct keys a window holds at most (the "other" field besides)
    ARGV[5] the "other" field's key (JSON)
    ARGV[6] when the counts expire (ms since the epoch: the window's end plus the retention)

  Output:
    'counted' under its own key
    'other'   under the window's "other" key (the window was full)
]]
local field, at = ARGV[1], tonumber(ARGV[2])
local current = redis.call('HGET', KEYS[1], field)
if not current and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  field = ARGV[5]
  current = redis.call('HGET', KEYS[1], field)
end
local entry
if current then
  entry = cjson.decode(current)
  entry.count = entry.count + 1
  entry.firstSeen = math.min(entry.firstSeen, at)
  entry.lastSeen = math.max(entry.lastSeen, at)
else
  entry = { count = 1, firstSeen = at, lastSeen = at, sample = cjson.decode(ARGV[3]) }
end
redis.call('HSET', KEYS[1], field, cjson.encode(entry))
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[6]))
if field == ARGV[5] then return 'other' end
return 'counted'
