--[[
  Creates an intake's record for a message the raw store has committed, or answers what a
  re-delivery of the same message finds. Whatever the outcome, the intake becomes findable by its
  Message-ID and From (search-index.ts; a re-delivery is indexed again at its own time).

  A new record is `received`, points at the blob and its header lines, and names its intake in
  the blob index (blob-index.ts). It expires, and so does its entry in the received index, unless
  queueing confirms it. A `failed` record stays `failed`, keeping its letter id, and now points at
  the new copy of the same bytes (which heals a lost blob), until the caller queues it anew as a
  replay does: a caller that stops first leaves it failed and replayable. Any other record is left
  as it is (the new copy is then an orphan for the raw-store sweep). A message whose intake was
  erased (erase.ts) makes nothing: its tombstone is answered, and nothing is written or indexed.

  Input:
    KEYS[1] the intake record (hash)
    KEYS[2] the received-state index (sorted set: intake id by time received)
    KEYS[3] the blob index (hash: blob key -> intake id)
    KEYS[4] the Message-ID search index entry (sorted set)
    KEYS[5] the From search index entry (sorted set)
    KEYS[6] the intake's erasure tombstone (string: when, why, by whom)

    ARGV[1] now (ms since the epoch)
    ARGV[2] the intake id
    ARGV[3] how long an unconfirmed `received` record lives (ms)
    ARGV[4] the blob key in the raw store
    ARGV[5] our header lines to put in front of the blob
    ARGV[6] how long a search index entry lives (ms)
    ARGV[7..] the record's fields: field, value, field, value, ...

  Output:
    {'erased', tombstone}      the intake was erased: nothing written
    'created'                  a new `received` record
    {'requeue', letterId|''}   a `failed` record, now pointing at the new blob
    {state, rawKey, rawHeaders} the existing record's state, blob and header lines, left unchanged
]]
local erased = redis.call('GET', KEYS[6])
if erased then return {'erased', erased} end
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
if existing then return {existing, redis.call('HGET', KEYS[1], 'rawKey') or '', redis.call('HGET', KEYS[1], 'rawHeaders') or ''} end
redis.call('HSET', KEYS[1], 'state', 'received', 'at.received', ARGV[1], 'rawKey', ARGV[4], 'rawHeaders', ARGV[5], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
return 'created'
