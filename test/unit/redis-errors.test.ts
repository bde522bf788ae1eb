// Which errors a worker meets when Redis is away or changing primaries, as ioredis and Redis
// write them: such a job goes back without spending an attempt; anything else is not Redis's.
// And which are storage trouble at all (Redis away, or refusing writes for its own state).
import { describe, expect, it } from 'vitest';
import { isStorageError, redisTroubleOf } from '../../src/redis/redis-errors.js';

const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
const socket = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });

describe('Redis trouble', () => {
  it.each([
    [reply("READONLY You can't write against a read only replica."), 'failover'],
    [reply('LOADING Redis is loading the dataset in memory'), 'failover'],
    [reply('MASTERDOWN Link with MASTER is down and replica-serve-stale is set to no.'), 'failover'],
    [reply('NOREPLICAS Not enough good replicas to write.'), 'failover'],
    [
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
      'connection',
    ],
    [socket('ECONNREFUSED'), 'connection'],
    [socket('ECONNRESET'), 'connection'],
    [new Error('Connection is closed.'), 'connection'],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'connection'],
    [new Error('Command timed out'), 'timeout'],
  ])('%s is %s', (err, trouble) => {
    expect(redisTroubleOf(err)).toBe(trouble);
  });

  it.each([
    [reply('ERR unknown command'), 'a command Redis refuses'],
    [reply('OOM command not allowed when used memory > maxmemory'), 'a full Redis (no failover ends it)'],
    [new Error('READONLY in a message that is not a reply'), 'a text that merely starts alike'],
    [new TypeError("Cannot read properties of undefined (reading 'id')"), 'a defect'],
    ['READONLY', 'not an error at all'],
  ])('%s is not Redis trouble (%s)', (err, _why) => {
    expect(redisTroubleOf(err)).toBeUndefined();
  });
});

describe('storage trouble', () => {
  it.each([
    [reply("READONLY You can't write against a read only replica."), 'a failover'],
    [new Error('Connection is closed.'), 'a lost connection'],
    [new Error('Command timed out'), 'a time-out'],
    [reply('OOM command not allowed when used memory > maxmemory'), 'a full Redis'],
    [reply("NOPERM User gateway has no permissions to access the 'intake:record:i-1' key"), 'an ACL that refuses'],
    [reply('MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.'), 'a failed save'],
    [reply('BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'), 'a long script'],
    [reply('NOAUTH Authentication required.'), 'a password now required'],
  ])('%s is storage trouble (%s)', (err, _why) => {
    expect(isStorageError(err)).toBe(true);
  });

  it.each([
    [reply('ERR user_script:1: Script attempted to access nonexistent global variable'), 'a Lua runtime error'],
    [reply('WRONGTYPE Operation against a key holding the wrong kind of value'), 'a key of another type'],
    [reply('BUSYGROUP Consumer Group name already exists'), 'a word that merely starts alike'],
    [new Error('OOM in a message that is not a reply'), 'not a reply'],
    [new TypeError("Cannot read properties of undefined (reading 'state')"), 'a defect'],
  ])('%s is not (%s)', (err, _why) => {
    expect(isStorageError(err)).toBe(false);
  });
});
