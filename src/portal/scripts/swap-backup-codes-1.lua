--[[
  Uses one backup code: rewrites the user's list of backup-code hashes only while it still holds
  the list the caller read, so a code used twice at the same instant is used once.

  Input:
    KEYS[1] the portal user (hash)

    ARGV[1] the list of backup-code hashes as read (JSON)
    ARGV[2] the list without the code used (JSON)

  Output:
    1  the code was unused and is gone now
    0  the list changed meanwhile (the code was used, or the codes were renewed)
]]
if redis.call('HGET', KEYS[1], 'backupCodes') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'backupCodes', ARGV[2])
  return 1
end
return 0
