// What Redis knows about raw-store blobs, so housekeeping can tell a live blob from an orphan
// and knows when retention is over. Two small keys beside the records (same hash tag):
//   <prefix>:raw-blobs  hash  blob key → intake id   (written with the record, store.ts CREATE)
//   <prefix>:raw-due    zset  blob key, scored by the time its retention ends
//                             (written when the intake ends submitted or rejected, TRANSITION)
// A blob is live while the record its entry names exists and still points at it; a failed
// intake's blob is never due (it waits for replay).

import type { BlobIndex } from '../raw-store/blob-index.js';
import type { RedisClient } from '../redis/connections.js';
import { intakeKeys } from './keys.js';

export interface BlobIndexKeys {
  readonly blobs: string;
  readonly due: string;
}

export function blobIndexKeys(prefix: string): BlobIndexKeys {
  return { blobs: `${prefix}:raw-blobs`, due: `${prefix}:raw-due` };
}

/** The record field holding the blob key. */
export const RAW_KEY_FIELD = 'rawKey';

export function redisBlobIndex(redis: RedisClient, prefix: string): BlobIndex {
  const keys = blobIndexKeys(prefix);
  const records = intakeKeys(prefix);
  return {
    async referenced(blobKeys) {
      if (blobKeys.length === 0) return new Set();
      const owners = await redis.hmget(keys.blobs, ...blobKeys);
      const claimed = blobKeys.flatMap((key, i) => {
        const intakeId = owners[i];
        return intakeId === null || intakeId === undefined ? [] : [{ key, intakeId }];
      });
      if (claimed.length === 0) return new Set();
      const pipeline = redis.pipeline();
      for (const { intakeId } of claimed) pipeline.hget(records.record(intakeId), RAW_KEY_FIELD);
      const answers = (await pipeline.exec()) ?? [];
      return new Set(
        claimed
          .filter(({ key }, i) => {
            const [err, pointsAt] = answers[i] ?? [new Error('no answer'), null];
            if (err !== null) throw err;
            return pointsAt === key;
          })
          .map(({ key }) => key),
      );
    },
    async due(now, limit) {
      return redis.zrangebyscore(keys.due, '-inf', now, 'LIMIT', 0, limit);
    },
    async forget(blobKeys) {
      if (blobKeys.length === 0) return;
      await redis
        .multi()
        .hdel(keys.blobs, ...blobKeys)
        .zrem(keys.due, ...blobKeys)
        .exec();
    },
  };
}
