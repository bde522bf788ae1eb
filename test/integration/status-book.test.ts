// The letter statuses learned from a Sender API, in Redis: what one worker learns another reads,
// a status a draft showed never proves a submit, each API has its own, and the sets are bounded.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeStatus } from '../../src/worker/letter-statuses.js';
import { redisLetterStatuses } from '../../src/worker/status-book.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const API = 'https://api.example';
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

describe('the letter statuses learned from one Sender API', () => {
  it('are shared by the workers of that API and only of that API', async () => {
    const one = redisLetterStatuses(redis, prefix, API, Date.now);
    await one.learnDraft('Unsent');
    await one.learnSubmitted('Queued');
    const another = redisLetterStatuses(redis, prefix, API, Date.now);
    const known = await another.known();
    expect(judgeStatus('Queued', 'Draft', known)).toBe('submitted');
    expect(judgeStatus('Unsent', undefined, known)).toBe('draft');
    expect(judgeStatus('Elsewhere', 'Draft', known)).toBe('unknown');
    const otherApi = await redisLetterStatuses(redis, prefix, 'https://other.example', Date.now).known();
    expect(judgeStatus('Queued', 'Draft', otherApi)).toBe('unknown');
  });

  it('never keep as proof of a submit a status a draft showed, before or after', async () => {
    const book = redisLetterStatuses(redis, prefix, `${API}/before-after`, Date.now);
    await book.learnDraft('Saved');
    await book.learnSubmitted('Saved'); // a 2xx submit that left the letter in a draft status
    await book.learnSubmitted('Passing');
    const later = redisLetterStatuses(redis, prefix, `${API}/before-after`, Date.now);
    await later.learnDraft('Passing'); // a draft of ours showed it after all
    const known = await redisLetterStatuses(redis, prefix, `${API}/before-after`, Date.now).known();
    expect([...known.submitted]).toEqual([]);
    expect([...known.drafts].sort()).toEqual(['Passing', 'Saved']);
  });

  it('keep at most 64 names per set', async () => {
    const book = redisLetterStatuses(redis, prefix, `${API}/bounded`, Date.now);
    for (let i = 0; i < 80; i += 1) await book.learnSubmitted(`Invented${i}`);
    expect((await redisLetterStatuses(redis, prefix, `${API}/bounded`, Date.now).known()).submitted.size).toBe(64);
  });
});
