--[[
  Claims a one-time form token: the first submit of a form takes it, a later one learns what the
  first made (an intake id) or that it is still under way.

  Input:
    KEYS[1] the form token (string, with its expiry)

    ARGV[1] the value of a token not yet used
    ARGV[2] the value of a token being used (the expiry is kept)

  Output:
    {'claimed'}  this submit took the token
    {value}      the token's value: ARGV[2] while under way, else the intake id it made
    {false}      no such token (never issued, or expired)
]]
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return {'claimed'}
end
return {v or false}
