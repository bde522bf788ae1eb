--[[
  Moves one notice kind's checkpoint in the intake record, if its current state is one of those
  allowed: two workers holding the same notice job (a lapsed lock) cannot both pass it.

  Input:
    KEYS[1] the intake record (hash)

    ARGV[1] the kind's state field
    ARGV[2] the kind's entry field
    ARGV[3] the new state
    ARGV[4] the entry (JSON)
    ARGV[5] the states it may come from (a comma list; 'absent' for no entry yet)

  Output:
    'ok'    moved
    'gone'  no record (it expired or never was)
    state   the current state ('absent' if none), which may not move
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local state = redis.call('HGET', KEYS[1], ARGV[1]) or 'absent'
for from in string.gmatch(ARGV[5], '[^,]+') do
  if from == state then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], ARGV[2], ARGV[4])
    return 'ok'
  end
end
return state
