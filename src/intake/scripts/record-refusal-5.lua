--[[
  Writes one record of a refused message (session-refusals.ts): every bound is checked and kept
  in the same step as the write, so concurrent listeners cannot overshoot them.

  A record costs 5/4 of its length plus ARGV[9]: the allocator rounds a string up by less than a
  quarter, so the budget bounds what Redis really holds, not only the text. A network past its
  records this window still has its latest refusal kept: it takes the place of the network's
  previous latest (KEYS[5]), so a burst keeps its first records and its last. Only one window's
  counts are kept, and they expire two windows after the last count, so the counts never take
  more than ARGV[8] entries (their cost is set aside from the budget by the caller).

  Input:
    KEYS[1] the records (sorted set, scored by the time refused)
    KEYS[2] the records' cost in bytes (a counter kept beside them, with the same expiry)
    KEYS[3] records per client network in the window being counted (hash: network -> count)
    KEYS[4] the number of the window KEYS[3] counts (a newer window starts the count afresh)
    KEYS[5] the latest record of each network past its records this window (hash: network -> record)

    ARGV[1] now (ms since the epoch)
    ARGV[2] the record (JSON)
    ARGV[3] retention (ms)
    ARGV[4] records kept at most
    ARGV[5] byte budget of the records
    ARGV[6] the client's network
    ARGV[7] records per network per window
    ARGV[8] networks counted per window at most
    ARGV[9] bytes charged per record besides its own (Redis's bookkeeping for one entry)
    ARGV[10] this window's number
    ARGV[11] the window (ms)

  Output:
    'recorded'  written (the oldest records dropped as the bounds need)
    'latest'    the network has had its records this window: kept in place of its previous latest
    'networks'  too many networks this window to count one more
    'budget'    one record is over the whole budget
]]
local now, member, retention = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local maxKept, maxBytes, overhead = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[9])
local function cost(m) return math.ceil(#m * 5 / 4) + overhead end
local window, windowMs = tonumber(ARGV[10]), tonumber(ARGV[11])
if tonumber(redis.call('GET', KEYS[4]) or '-1') < window then
  redis.call('DEL', KEYS[3], KEYS[5])
  redis.call('SET', KEYS[4], window, 'PX', 2 * windowMs)
end
local seen = tonumber(redis.call('HGET', KEYS[3], ARGV[6]) or '0')
local over = seen >= tonumber(ARGV[7])
if seen == 0 and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[8]) then return 'networks' end
local own = cost(member)
if own > maxBytes then return 'budget' end
local bytes = 0
if redis.call('EXISTS', KEYS[1]) == 1 then bytes = tonumber(redis.call('GET', KEYS[2]) or '0') end
if over then
  local previous = redis.call('HGET', KEYS[5], ARGV[6])
  if previous and redis.call('ZREM', KEYS[1], previous) == 1 then bytes = bytes - cost(previous) end
  redis.call('HSET', KEYS[5], ARGV[6], member)
  redis.call('PEXPIRE', KEYS[5], 2 * windowMs)
else
  redis.call('HINCRBY', KEYS[3], ARGV[6], 1)
end
redis.call('PEXPIRE', KEYS[3], 2 * windowMs)
redis.call('PEXPIRE', KEYS[4], 2 * windowMs)
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - retention)) do bytes = bytes - cost(m) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - retention)
while redis.call('ZCARD', KEYS[1]) >= maxKept or bytes + own > maxBytes do
  local oldest = redis.call('ZPOPMIN', KEYS[1])
  if #oldest == 0 then bytes = 0 break end
  bytes = bytes - cost(oldest[1])
end
redis.call('ZADD', KEYS[1], now, member)
redis.call('PEXPIRE', KEYS[1], retention)
redis.call('SET', KEYS[2], math.max(bytes, 0) + own, 'PX', retention)
if over then return 'latest' end
return 'recorded'
