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

describe('script calls made together when the pipeline fails whole', () => {
  it('fail every caller of that pipeline with its error (a connection lost mid-pipeline)', async () => {
    const echo = String(await redis.script('LOAD', ECHO));
    const client = groupedScripts(redis, BOUNDS);
    const lost = new Error('Connection is closed.');
    const original = redis.pipeline.bind(redis);
    redis.pipeline = (...args: Parameters<Redis['pipeline']>) => Object.assign(original(...args), { exec: () => Promise.reject(lost) });
    try {
      const key = `${prefix}:lost`;
      const [alone, ...together] = await Promise.allSettled([
        client.evalsha(echo, 1, key, 'alone'),
        client.evalsha(echo, 1, key, 'second'),
        client.evalsha(echo, 1, key, 'third'),
      ]);
      expect(alone).toEqual({ status: 'fulfilled', value: [key, 'alone', 1] }); // alone: a plain command, not a pipeline
      expect(together).toEqual([
        { status: 'rejected', reason: lost },
        { status: 'rejected', reason: lost },
      ]);
    } finally {
      Object.assign(redis, { pipeline: original });
    }
  });
});

/** A queue whose addBulk fails as BullMQ's pipeline does: the jobs it names in `refused` are not added, the others are, then it throws. */
function queueRefusing(refused: (jobId: string) => boolean, failure: Error): { queue: Queue<IntakeJobData>; bulks: () => number } {
  const queue = new Queue<IntakeJobData>('intake', { connection: redis, prefix });
  queue.on('error', () => {});
  let bulks = 0;
  const addBulk = queue.addBulk.bind(queue);
  queue.addBulk = async (jobs) => {
    bulks += 1;
    const kept = jobs.filter((job) => !refused(job.opts?.jobId ?? ''));
    if (kept.length > 0) await addBulk(kept);
    throw failure;
  };
  return { queue, bulks: () => bulks };
}

const addAll = (add: ReturnType<typeof groupedJobAdds>, ids: readonly string[]) =>
  Promise.allSettled(ids.map((intakeId) => add({ intakeId, from: 'a@acme.example', sizeBytes: 1 }, intakeJobOptions(intakeId, 3))));

describe('jobs added together', () => {
  it('answer each caller for its own job when one add of the batch fails: the others were queued', async () => {
    const failure = new Error('ERR one add of the pipeline failed');
    const { queue, bulks } = queueRefusing((id) => id === 'in-partial-3', failure);
    try {
      const ids = ['in-partial-1', 'in-partial-2', 'in-partial-3', 'in-partial-4'];
      const answers = await addAll(groupedJobAdds(queue, BOUNDS), ids);
      expect(bulks()).toBe(1);
      expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(answers[2]).toEqual({ status: 'rejected', reason: failure });
      const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
      expect(states).toEqual(['waiting', 'waiting', 'unknown', 'waiting']);
    } finally {
      await queue.close();
    }
  });

  it('fail every caller of a batch none of whose jobs was queued, with the batch’s error', async () => {
    const failure = new Error('Connection is closed.');
    const { queue } = queueRefusing(() => true, failure);
    try {
      const ids = ['in-none-1', 'in-none-2', 'in-none-3'];
      const answers = await addAll(groupedJobAdds(queue, BOUNDS), ids);
      expect(answers).toEqual([
        expect.objectContaining({ status: 'fulfilled' }), // alone: a plain add
        { status: 'rejected', reason: failure },
        { status: 'rejected', reason: failure },
      ]);
      expect(await queue.getJobState('in-none-2')).toBe('unknown');
    } finally {
      await queue.close();
    }
  });

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
