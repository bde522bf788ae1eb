// The Redis side of raw-store housekeeping: which blobs are live, which are due.

import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobIndexKeys, redisBlobIndex } from '../../src/intake/blob-index.js';
import { intakeKeys } from '../../src/intake/keys.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

describe('the blob index', () => {
  let redis: Redis;
  let prefix: string;
  beforeEach(() => {
    redis = connectTestRedis();
    prefix = randomPrefix();
  });
  afterEach(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('counts a blob as live only while the record it names exists and points at it', async () => {
    const { blobs } = blobIndexKeys(prefix);
    const records = intakeKeys(prefix);
    await redis.hset(blobs, { 'live.eml': 'in-a', 'record-gone.eml': 'in-b', 'replaced.eml': 'in-c' });
    await redis.hset(records.record('in-a'), { intakeId: 'in-a', rawKey: 'live.eml' });
    await redis.hset(records.record('in-c'), { intakeId: 'in-c', rawKey: 'other.eml' });
    const live = await redisBlobIndex(redis, prefix).referenced(['live.eml', 'record-gone.eml', 'replaced.eml', 'never-indexed.eml']);
    expect([...live]).toEqual(['live.eml']);
  });

  it('gives the blobs whose retention ended, oldest first, and forgets them with their owners', async () => {
    const { blobs, due } = blobIndexKeys(prefix);
    await redis.zadd(due, 300, 'c.eml', 100, 'a.eml', 200, 'b.eml');
    await redis.hset(blobs, { 'a.eml': 'in-a', 'b.eml': 'in-b', 'c.eml': 'in-c' });
    const index = redisBlobIndex(redis, prefix);
    expect(await index.due(200, 10)).toEqual(['a.eml', 'b.eml']);
    expect(await index.due(300, 1)).toEqual(['a.eml']);
    await index.forget(['a.eml', 'b.eml']);
    expect(await index.due(1000, 10)).toEqual(['c.eml']);
    expect(await redis.hkeys(blobs)).toEqual(['c.eml']);
  });
});
