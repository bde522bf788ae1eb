// Group commit of the listener's Redis writes, on real Redis: script calls that arrive together
// share one pipeline (src/redis/grouped-scripts.ts), jobs added together one addBulk
// (src/intake/queue.ts), and each caller still gets its own answer or its own error.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedJobAdds, type IntakeJobData, intakeJobOptions } from '../../src/intake/queue.js';
import { groupedScripts } from '../../src/redis/grouped-scripts.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const BOUNDS = { maxWaitMs: 60_000, max: 32 };
const ECHO = "return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}";
const FAILS = "return redis.error_reply('refused')";

let redis: Redis;
let prefix: string;
beforeAll(() => {
  redis = connectTestRedis();
  prefix = randomPrefix();
});
afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

/** Counts the pipelines the client opens. */
function countPipelines(client: Redis): { readonly count: () => number; readonly restore: () => void } {
  let count = 0;
  const original = client.pipeline.bind(client);
  client.pipeline = (...args: Parameters<Redis['pipeline']>) => {
    count += 1;
    return original(...args);
  };
  return { count: () => count, restore: () => Object.assign(client, { pipeline: original }) };
}

describe('script calls made together', () => {
  it('go at once when alone, then in one pipeline for the calls that came while it was in flight, each with its own answer', async () => {
    const echo = await redis.script('LOAD', ECHO);
    const fails = await redis.script('LOAD', FAILS);
    const client = groupedScripts(redis, BOUNDS);
    const pipelines = countPipelines(redis);
    try {
      const key = `${prefix}:counter`;
      const answers = await Promise.allSettled([
        client.evalsha(String(echo), 1, key, 'first'),
        client.evalsha(String(echo), 1, key, 'second'),
        client.evalsha(String(fails), 0),
        client.evalsha(String(echo), 1, key, 'third'),
      ]);
      expect(answers).toEqual([
        { status: 'fulfilled', value: [key, 'first', 1] },
        { status: 'fulfilled', value: [key, 'second', 2] },
        { status: 'rejected', reason: expect.objectContaining({ message: 'ERR refused' }) },
        { status: 'fulfilled', value: [key, 'third', 3] },
      ]);
      expect(pipelines.count()).toBe(1); // the first went alone, as a plain command
    } finally {
      pipelines.restore();
    }
  });
});

describe('jobs added together', () => {
  it('share one addBulk after the lone first (a plain add), and every job is queued under its intake id', async () => {
    const queue = new Queue<IntakeJobData>('intake', { connection: redis, prefix });
    queue.on('error', () => {});
    let bulks = 0;
    const addBulk = queue.addBulk.bind(queue);
    queue.addBulk = (jobs) => {
      bulks += 1;
      return addBulk(jobs);
    };
    try {
      const add = groupedJobAdds(queue, BOUNDS);
      const ids = ['in-grouped-1', 'in-grouped-2', 'in-grouped-3', 'in-grouped-4'];
      await Promise.all(ids.map((intakeId) => add({ intakeId, from: 'a@acme.example', sizeBytes: 1 }, intakeJobOptions(intakeId, 3))));
      expect(bulks).toBe(1);
      const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
      expect(states).toEqual(['waiting', 'waiting', 'waiting', 'waiting']);
    } finally {
      await queue.close();
    }
  });
});
