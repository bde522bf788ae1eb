--[[
  Moves an intake's record to another state, if its state is one of those allowed (and, when an
  owner is expected, only while that owner holds it), with the given fields: state, timeline,
  owner, fields and the per-state indexes change in one step, so they never disagree.

  Every transition but a claim (a new owner given) clears the owner: a worker whose lock lapsed
  can write nothing afterwards. Leaving `failed` (a replay or a re-delivery) keeps the run that
  failed in `earlierRuns` (its timeline after `received`, its error, its attempts; the newest 20)
  and starts the new run's timeline afresh, so the intake page shows every attempt instead of one
  overwritten by the next. A claim (a new owner) never leaves `failed`, whatever the allowed
  states: its sender was told, and only a replay queues it again.

  Input:
    KEYS[1] the intake record (hash)
    KEYS[2] the raw-store deletion schedule (sorted set: blob key by time due)
    KEYS[3] the index of `received` intakes (sorted set: intake id by time it entered the state)
    KEYS[4] the index of `queued` intakes
    KEYS[5] the index of `processing` intakes
    KEYS[6] the index of `submitted` intakes
    KEYS[7] the index of `rejected` intakes
    KEYS[8] the index of `failed` intakes
    KEYS[9] the index of `simulated` intakes (a dry run's end)
    Each index's key ends in its state's name (keys.ts). Every key the script touches is given
    here, none is built inside it: a Redis Cluster routes a script, and holds it while its slot
    moves, by the keys it is given.

    ARGV[1] the new state
    ARGV[2] now (ms since the epoch)
    ARGV[3] how long the record lives from now (ms; -1: it stays)
    ARGV[4] how long its blob is kept from now (ms; -1: it is never due)
    ARGV[5] the states the record may leave (a comma list)
    ARGV[6] the owner that must hold the record ('' = anyone)
    ARGV[7] the new owner ('' = none; set: a claim)
    ARGV[8] '1': answer with the record as the move left it, as a claim does ('' = 'ok')
    ARGV[9..] fields to set: field, value, field, value, ...

  Output:
    'ok'                        moved
    {'ok', HGETALL of record}   moved by a claim, or asked to answer with it (ARGV[8]): the record as the move left it
    'notowner'                  the expected owner no longer holds the record
    state                       the current state, which may not move to ARGV[1]
    ''                          no record
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return '' end
local stateIndex = {}
for i = 3, #KEYS do stateIndex[string.match(KEYS[i], '[^:]+$')] = KEYS[i] end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], 'owner') ~= ARGV[6] then return 'notowner' end
local allowed = false
for from in string.gmatch(ARGV[5], '[^,]+') do if from == state then allowed = true end end
if not allowed then return state end
if state == 'failed' and ARGV[7] ~= '' then return state end
local id = redis.call('HGET', KEYS[1], 'intakeId')
if state == 'failed' and ARGV[1] ~= 'failed' then
  local run = {timeline = {}}
  for _, s in ipairs({'queued', 'processing', 'failed'}) do
    local at = redis.call('HGET', KEYS[1], 'at.' .. s)
    if at then run.timeline[s] = at end
  end
  for _, f in ipairs({'errorCode', 'reason', 'attempts'}) do
    local value = redis.call('HGET', KEYS[1], f)
    if value then run[f] = value end
  end
  local runs = {}
  local kept = redis.call('HGET', KEYS[1], 'earlierRuns')
  if kept then runs = cjson.decode(kept) end
  table.insert(runs, run)
  while #runs > 20 do table.remove(runs, 1) end
  redis.call('HSET', KEYS[1], 'earlierRuns', cjson.encode(runs))
  redis.call('HDEL', KEYS[1], 'at.queued', 'at.processing', 'at.failed')
end
-- a letter after earlier failed attempts: their error fields no longer describe the intake
if ARGV[1] == 'submitted' or ARGV[1] == 'simulated' then redis.call('HDEL', KEYS[1], 'errorCode', 'reason', 'reasonCode', 'traceId') end
-- a worker can take the job before the listener marks it queued: the job was queued by then
if state == 'received' and ARGV[1] ~= 'queued' then redis.call('HSETNX', KEYS[1], 'at.queued', ARGV[2]) end
if ARGV[7] == '' then redis.call('HDEL', KEYS[1], 'owner') else redis.call('HSET', KEYS[1], 'owner', ARGV[7]) end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'at.' .. ARGV[1], ARGV[2], unpack(ARGV, 9))
redis.call('ZREM', stateIndex[state], id)
redis.call('ZADD', stateIndex[ARGV[1]], ARGV[2], id)
-- ended intakes' records expire: their index entries go with them
if tonumber(ARGV[3]) >= 0 then redis.call('ZREMRANGEBYSCORE', stateIndex[ARGV[1]], '-inf', ARGV[2] - ARGV[3]) end
if tonumber(ARGV[3]) >= 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
-- an ended intake's blob is due for deletion when its retention is over (raw-store housekeeping)
local rawKey = redis.call('HGET', KEYS[1], 'rawKey')
if rawKey and tonumber(ARGV[4]) >= 0 then redis.call('ZADD', KEYS[2], string.format('%d', ARGV[2] + ARGV[4]), rawKey) end
-- the claiming worker reads the record as its claim left it, and an ending one the record its
-- ended marker is written from, in the same round trip
if ARGV[7] ~= '' or ARGV[8] == '1' then return {'ok', redis.call('HGETALL', KEYS[1])} end
return 'ok'
