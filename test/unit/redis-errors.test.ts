// Which errors a worker meets when Redis is away or changing primaries, as ioredis and Redis
// write them: such a job goes back without spending an attempt; anything else is not Redis's.
import { describe, expect, it } from 'vitest';
import { redisTroubleOf } from '../../src/redis/redis-errors.js';

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
