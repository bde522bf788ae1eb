--[[
  Admits a new intake against its sender's limits (sender-limits.ts), counting it in the same
  step as the check, so listeners sharing one Redis never let more through than a limit allows.

  What counts: each new intake, its size as received, over a sliding hour; and the sender's
  intakes not yet ended. An intake whose record exists (a re-delivery) counts nothing, and one
  already counted in the window (a retry after a 451) counts once. An open intake stays counted
  while one of the received/queued/processing indexes holds it, or, before its record is written,
  for ARGV[8] after its admission; the others are dropped here, at the sender's next admission.

  Input:
    KEYS[1] the intake's record (its existence: a re-delivery)
    KEYS[2] the sender's window (sorted set: intake id by time admitted)
    KEYS[3] the sizes of the window's intakes (hash: intake id -> bytes)
    KEYS[4] the sender's open intakes (sorted set: intake id by time admitted)
    KEYS[5] the index of `received` intakes
    KEYS[6] the index of `queued` intakes
    KEYS[7] the index of `processing` intakes

    ARGV[1] now (ms since the epoch)
    ARGV[2] the window (ms)
    ARGV[3] the intake id
    ARGV[4] its size (bytes)
    ARGV[5] messages per window at most (0: no limit)
    ARGV[6] bytes per window at most (0: no limit)
    ARGV[7] open intakes at most (0: no limit)
    ARGV[8] how long an admitted intake without a state counts as open (ms)
    ARGV[9] how long the open set lives after the last admission (ms)

  Output:
    {'redelivery'}                                  counted nothing
    {'admitted', messages, bytes, open}             counted now; the use after it
    {'counted', messages, bytes, open}              counted before (another delivery of it under way)
    {'full', limit name, limit, room at (ms; 0: when an intake ends; -1: never), messages, bytes, open}
]]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local id = ARGV[3]
local size = tonumber(ARGV[4])
local maxMessages = tonumber(ARGV[5])
local maxBytes = tonumber(ARGV[6])
local maxOpen = tonumber(ARGV[7])

if redis.call('EXISTS', KEYS[1]) == 1 then return {'redelivery'} end

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - window)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  redis.call('HDEL', KEYS[3], unpack(expired))
end

local open = redis.call('ZRANGE', KEYS[4], 0, -1, 'WITHSCORES')
local openCount = 0
for i = 1, #open, 2 do
  local member, admitted = open[i], tonumber(open[i + 1])
  local pending = admitted > now - tonumber(ARGV[8])
    or redis.call('ZSCORE', KEYS[5], member)
    or redis.call('ZSCORE', KEYS[6], member)
    or redis.call('ZSCORE', KEYS[7], member)
  if pending then openCount = openCount + 1 else redis.call('ZREM', KEYS[4], member) end
end

local members = redis.call('ZRANGE', KEYS[2], 0, -1)
local sizes = {}
local bytes = 0
if #members > 0 then
  sizes = redis.call('HMGET', KEYS[3], unpack(members))
  for i = 1, #sizes do bytes = bytes + (tonumber(sizes[i]) or 0) end
end

if redis.call('ZSCORE', KEYS[2], id) then return {'counted', #members, bytes, openCount} end

if maxMessages > 0 and #members + 1 > maxMessages then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', 'messagesPerHour', maxMessages, tonumber(oldest[2]) + window, #members, bytes, openCount}
end
if maxBytes > 0 and bytes + size > maxBytes then
  if size > maxBytes then return {'full', 'bytesPerHour', maxBytes, -1, #members, bytes, openCount} end
  -- Room comes when enough of the oldest intakes leave the window.
  local scored = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  local left = bytes
  local room = now + window
  for i = 1, #scored, 2 do
    left = left - (tonumber(sizes[(i + 1) / 2]) or 0)
    if left + size <= maxBytes then
      room = tonumber(scored[i + 1]) + window
      break
    end
  end
  return {'full', 'bytesPerHour', maxBytes, room, #members, bytes, openCount}
end
if maxOpen > 0 and openCount + 1 > maxOpen then
  return {'full', 'queuedIntakes', maxOpen, 0, #members, bytes, openCount}
end

redis.call('ZADD', KEYS[2], now, id)
redis.call('HSET', KEYS[3], id, size)
redis.call('ZADD', KEYS[4], now, id)
redis.call('PEXPIRE', KEYS[2], window)
redis.call('PEXPIRE', KEYS[3], window)
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[9]))
return {'admitted', #members + 1, bytes + size, openCount + 1}
