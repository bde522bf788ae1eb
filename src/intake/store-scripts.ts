// The intake store's Lua scripts: each state change or guarded write is one script, so a
// record's state, its owner, its timeline and the state indexes never disagree.
import { luaScript } from './lua-script.js';

// KEYS: record, received-index, raw-blobs, Message-ID index, From index.
// ARGV: now, intakeId, unfinishedTtlMs, rawKey, rawHeaders, indexKeepMs, field, value, ...
// The message itself was committed to the raw store under rawKey before this runs: the record
// points at it and the blob index names its intake (blob-index.ts). Whatever the outcome, the
// intake becomes findable by its Message-ID and From (search-index.ts; a re-delivery is indexed
// again at its own time). Returns 'created'; or, for a re-delivery, ['requeue', letterId or '']
// when the record was `failed` (it now points at the new copy of the same bytes, which heals a
// lost blob, and stays `failed`, keeping its letter id, until the caller queues it anew as a
// replay does: a caller that stops first leaves it failed and replayable), else the existing
// state (the new copy is then an orphan for the sweep). A `received` record expires unless
// queueing confirms it; so does its entry in the received index.
export const CREATE = luaScript(
  `
for i = 4, 5 do
  redis.call('ZADD', KEYS[i], ARGV[1], ARGV[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1] - ARGV[6])
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1] - ARGV[3])
local existing = redis.call('HGET', KEYS[1], 'state')
if existing == 'failed' then
  redis.call('HSET', KEYS[1], 'rawKey', ARGV[4], 'rawHeaders', ARGV[5])
  redis.call('HSET', KEYS[3], ARGV[4], ARGV[2])
  return {'requeue', redis.call('HGET', KEYS[1], 'letterId') or ''}
end
if existing then return existing end
redis.call('HSET', KEYS[1], 'state', 'received', 'at.received', ARGV[1], 'rawKey', ARGV[4], 'rawHeaders', ARGV[5], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
return 'created'`,
  5,
);

// KEYS: record, raw (intakes from before the raw store), state-index prefix, raw-due.
// ARGV: to, now, ttlRecordMs, ttlRawMs (-1: keep), allowed-from (comma list),
// expected owner ('' = anyone), new owner ('' = none), field, value, ...
// Returns 'ok' (a claim: {'ok', the record's fields as HGETALL gives them}), 'notowner' when an
// expected owner no longer holds the record, or the current state when the transition is not
// allowed from it ('' if no record). Every transition but a claim (new owner set) clears the
// owner: a worker whose lock lapsed can write nothing afterwards. Leaving `failed` (a replay or a
// re-delivery) keeps the run that failed in `earlierRuns` (its timeline after `received`, its
// error, its attempts; the newest 20) and starts the new run's timeline afresh, so the intake page
// shows every attempt instead of one overwritten by the next. A claim (a new owner) never leaves
// `failed`, whatever the allowed states: its sender was told, and only a replay queues it again.
export const TRANSITION = luaScript(
  `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return '' end
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
if ARGV[1] == 'submitted' then redis.call('HDEL', KEYS[1], 'errorCode', 'reason', 'reasonCode', 'traceId') end
-- a worker can take the job before the listener marks it queued: the job was queued by then
if state == 'received' and ARGV[1] ~= 'queued' then redis.call('HSETNX', KEYS[1], 'at.queued', ARGV[2]) end
if ARGV[7] == '' then redis.call('HDEL', KEYS[1], 'owner') else redis.call('HSET', KEYS[1], 'owner', ARGV[7]) end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'at.' .. ARGV[1], ARGV[2], unpack(ARGV, 8))
redis.call('ZREM', KEYS[3] .. state, id)
redis.call('ZADD', KEYS[3] .. ARGV[1], ARGV[2], id)
-- ended intakes' records expire: their index entries go with them
if tonumber(ARGV[3]) >= 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3] .. ARGV[1], '-inf', ARGV[2] - ARGV[3]) end
if tonumber(ARGV[3]) >= 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
if tonumber(ARGV[4]) >= 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) else redis.call('PERSIST', KEYS[2]) end
-- an ended intake's blob is due for deletion when its retention is over (raw-store housekeeping)
local rawKey = redis.call('HGET', KEYS[1], 'rawKey')
if rawKey and tonumber(ARGV[4]) >= 0 then redis.call('ZADD', KEYS[4], string.format('%d', ARGV[2] + ARGV[4]), rawKey) end
-- the claiming worker reads the record as its claim left it, in the same round trip
if ARGV[7] ~= '' then return {'ok', redis.call('HGETALL', KEYS[1])} end
return 'ok'`,
  4,
);

// KEYS: record. ARGV: owner, write-once field ('' = none), field, value, ...
// Sets the fields only while the record is `processing` under this owner: 'ok', 'notowner', or
// 'conflict' when the write-once field already holds another value (a second letter id).
export const CHECKPOINT = luaScript(
  `
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'notowner' end
if ARGV[2] ~= '' then
  local current = redis.call('HGET', KEYS[1], ARGV[2])
  for i = 3, #ARGV, 2 do
    if ARGV[i] == ARGV[2] and current and current ~= ARGV[i + 1] then return 'conflict' end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 'ok'`,
  1,
);

// KEYS: record, the letter id's index entry (search-index.ts). ARGV: owner, intake id, how long
// the index entry lives (ms), letter id, then more field/value pairs (the draft status).
// Records the intake's letter id, once, while the owner holds it: 'notowner'; 'conflict' when the
// record names another letter; 'taken' when another intake recorded this letter (two intakes
// never share a letter); else 'ok', with the index entry naming this intake.
export const CHECKPOINT_LETTER = luaScript(
  `
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'notowner' end
local current = redis.call('HGET', KEYS[1], 'letterId')
if current and current ~= ARGV[4] then return 'conflict' end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[2] then return 'taken' end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'letterId', ARGV[4], unpack(ARGV, 5))
return 'ok'`,
  2,
);

// KEYS: record. ARGV: entry (JSON), its letter id ('' = unknown), its requestedAt ('' = none).
// Appends to the record's stray drafts whoever holds it: a fact, not a checkpoint. Skips the
// letter the record names (it is not stray) and an entry already listed. Returns 1 if appended.
export const APPEND_STRAY_DRAFT = luaScript(
  `
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
return 1`,
  1,
);
