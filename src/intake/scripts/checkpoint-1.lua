--[[
  Sets checkpoint fields on an intake's record, only while it is `processing` under this owner.
  A write-once field, once set, may not change (the letter id: one intake, one letter).

  Input:
    KEYS[1] the intake record (hash)

    ARGV[1] the owner (the job's lock token)
    ARGV[2] the write-once field among those set ('' = none)
    ARGV[3..] fields to set: field, value, field, value, ...

  Output:
    'ok'        set
    'notowner'  the record is not `processing` under this owner
    'conflict'  the write-once field holds another value already
]]
if redis.call('HGET', KEYS[1], 'state') ~= 'processing' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'notowner' end
if ARGV[2] ~= '' then
  local current = redis.call('HGET', KEYS[1], ARGV[2])
  for i = 3, #ARGV, 2 do
    if ARGV[i] == ARGV[2] and current and current ~= ARGV[i + 1] then return 'conflict' end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 'ok'
