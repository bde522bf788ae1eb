--[[
  Records an intake's letter id, once, while the owner holds the `processing` record, and names
  the intake in the letter's search index entry: two intakes never share a letter.

  Input:
    KEYS[1] the intake record (hash)
    KEYS[2] the letter id's search index entry (search-index.ts)

    ARGV[1] the owner (the job's lock token)
    ARGV[2] the intake id
    ARGV[3] how long the index entry lives (ms)
    ARGV[4] the letter id
    ARGV[5..] more fields to set: field, value, ... (the draft status)

  Output:
    'ok'        recorded, the index entry naming this intake
    'notowner'  the record is not `processing` under this owner
    'conflict'  the record names another letter
    'taken'     another intake recorded this letter
]]
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'notowner' end
local current = redis.call('HGET', KEYS[1], 'letterId')
if current and current ~= ARGV[4] then return 'conflict' end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[2] then return 'taken' end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'letterId', ARGV[4], unpack(ARGV, 5))
return 'ok'
