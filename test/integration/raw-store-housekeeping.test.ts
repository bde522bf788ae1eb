// One housekeeping round over a real store and the blob index in real Redis.

import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobIndexKeys, redisBlobIndex } from '../../src/intake/blob-index.js';
import { intakeKeys } from '../../src/intake/keys.js';
import { IntakeMarkers, markerRetention } from '../../src/intake/markers.js';
import { createLogger } from '../../src/log.js';
import { startHousekeeping } from '../../src/raw-store/housekeeping.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const file = RAW_STORE_KINDS.find((k) => k.name === 'file');
const DAY_MS = 24 * 3600_000;

describe('raw store housekeeping', () => {
  let redis: Redis;
  let prefix: string;
  let store: RawStore;
  let cleanup: () => void;
  beforeEach(() => {
    if (file === undefined) throw new Error('no file kind');
    const place = file.fresh();
    cleanup = place.cleanup;
    store = openRawStore(place.settings());
    redis = connectTestRedis();
    prefix = randomPrefix();
  });
  afterEach(async () => {
    store.close();
    cleanup();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  async function blob(content: string): Promise<string> {
    const write = store.begin();
    await write.write(Buffer.from(content));
    await write.commit();
    return write.key;
  }

  it('deletes what retention ended and what nobody points at, and keeps a live blob', async () => {
    const now = Date.now();
    const live = await blob('live');
    const expired = await blob('expired');
    const orphan = await blob('orphan');
    const { blobs, due } = blobIndexKeys(prefix);
    await redis.hset(blobs, { [live]: 'in-live', [expired]: 'in-expired' });
    await redis.hset(intakeKeys(prefix).record('in-live'), { rawKey: live });
    await redis.hset(intakeKeys(prefix).record('in-expired'), { rawKey: expired });
    await redis.zadd(due, now - 1, expired);
    const housekeeping = startHousekeeping({
      store,
      index: redisBlobIndex(redis, prefix),
      clock: () => now + 2 * 3600_000,
      logger: createLogger({ level: 'silent' }),
      orphanAfterMs: 3600_000,
      intervalMs: 3600_000,
    });
    expect(await housekeeping.runOnce()).toEqual({ expired: 1, orphans: 1, errors: 0 });
    await housekeeping.stop();
    expect(await store.readBuffer(expired)).toBeUndefined();
    expect(await store.readBuffer(orphan)).toBeUndefined();
    expect((await store.readBuffer(live))?.toString()).toBe('live');
    expect(await redis.hkeys(blobs)).toEqual([live]);
  });

  it('judges a marker younger than the retention by the end written in it, read once per process, not every round', async () => {
    const now = Date.now();
    // A store whose replace sets the time anew, as S3's LastModified (a directory's keeps it: nothing to read).
    const s3Like: RawStore = { ...store, keepsTimesOnReplace: false };
    const markers = new IntakeMarkers(s3Like);
    // Both files are new (as after a rekey on S3, where LastModified is the put's); one intake ended 40 days ago.
    for (const [id, at] of [
      ['in-long-ago', now - 40 * DAY_MS],
      ['in-yesterday', now - DAY_MS],
    ] as const) {
      await store.putMarker('accepted', id, '{}', 'replace');
      await markers.putEnded({ v: 1, intakeId: id, outcome: 'submitted', at });
    }
    const retention = markerRetention(markers);
    const asked: string[] = [];
    const housekeeping = startHousekeeping({
      store: s3Like,
      index: redisBlobIndex(redis, prefix),
      clock: () => now,
      logger: createLogger({ level: 'silent' }),
      orphanAfterMs: 3600_000,
      intervalMs: 3600_000,
      markers: {
        retentionMs: 30 * DAY_MS,
        mayExpire: retention.mayExpire,
        endedAt: (id, modifiedAt) => {
          asked.push(id);
          return retention.endedAt?.(id, modifiedAt) ?? Promise.resolve(undefined);
        },
      },
    });
    await housekeeping.runOnce();
    await housekeeping.runOnce();
    await housekeeping.stop();
    expect(await store.getMarker('accepted', 'in-long-ago')).toBeUndefined();
    expect(await store.getMarker('ended', 'in-long-ago')).toBeUndefined();
    expect(await store.getMarker('accepted', 'in-yesterday')).toBe('{}');
    expect(asked.sort()).toEqual(['in-long-ago', 'in-yesterday']);
  });
});
