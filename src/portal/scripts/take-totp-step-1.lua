--[[
  Takes a TOTP time step for a user: a code is accepted once per step (RFC 6238 §5.2), so a step
  is taken only when it is later than the last one taken.

  Input:
    KEYS[1] the user's last TOTP step taken (string)

    ARGV[1] the step of the code given

  Output:
    1  the step is taken
    0  this step, or a later one, was taken before
]]
local last = tonumber(redis.call('GET', KEYS[1]) or '-1')
if tonumber(ARGV[1]) > last then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
