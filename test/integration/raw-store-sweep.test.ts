// The sweep and retention, against every kind of store: orphans go once old enough, blobs an
// intake points at stay, retention deletes exactly what is due.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { deleteExpiredBlobs, sweepOrphans } from '../../src/raw-store/sweep.js';
import { blobsIn, freshRawStores, RAW_STORE_KINDS, type RawStorePlace } from '../helpers/raw-stores.js';

const ORPHAN_AFTER_MS = 3600 * 1000;

async function committed(store: RawStore, content = 'a letter'): Promise<string> {
  const write = store.begin();
  await write.write(Buffer.from(content));
  await write.commit();
  return write.key;
}

describe.each(RAW_STORE_KINDS)('housekeeping of the $name raw store', (kind) => {
  let place: RawStorePlace;
  let store: RawStore;
  const open = freshRawStores(kind);
  const fresh = (): void => {
    ({ place, store } = open());
  };

  it('deletes blobs no record points at once they are older than the bound, and keeps the others', async () => {
    fresh();
    const kept = await committed(store, 'referenced');
    const orphan = await committed(store, 'orphan');
    const forgotten: string[] = [];
    const result = await sweepOrphans({
      store,
      referenced: (keys) => Promise.resolve(new Set(keys.filter((k) => k === kept))),
      forget: (keys) => {
        forgotten.push(...keys);
        return Promise.resolve();
      },
      clock: () => Date.now() + 2 * ORPHAN_AFTER_MS, // both blobs are old by then
      orphanAfterMs: ORPHAN_AFTER_MS,
    });
    expect(result).toEqual({ deleted: 1, kept: 1 });
    expect(forgotten).toEqual([orphan]);
    expect(await store.readBuffer(orphan)).toBeUndefined();
    expect((await store.readBuffer(kept))?.toString()).toBe('referenced');
  });

  it('deletes a probe object a store check left behind, though no intake could ever claim it', async () => {
    fresh();
    const { location, s3Client } = place.settings();
    if (location.kind === 'file') {
      mkdirSync(join(location.dir, '.incoming'), { recursive: true });
      writeFileSync(join(location.dir, '.incoming', '.probe-left-behind'), 'probe\n');
    } else {
      const client = new S3Client({ ...s3Client, forcePathStyle: true });
      await client.send(new PutObjectCommand({ Bucket: location.bucket, Key: `${location.prefix}.probe-left-behind`, Body: 'probe\n' }));
      client.destroy();
    }
    const result = await sweepOrphans({
      store,
      referenced: () => Promise.resolve(new Set()),
      forget: () => Promise.resolve(),
      // What the worker's check answers for a blob it cannot read as a message (a sealed store: SealBroken).
      accepted: () => Promise.resolve(true),
      clock: () => Date.now() + 2 * ORPHAN_AFTER_MS,
      orphanAfterMs: ORPHAN_AFTER_MS,
    });
    expect(result).toEqual({ deleted: 1, kept: 0 });
    expect(await blobsIn(store)).toEqual({ committed: [], incomplete: [] });
  });

  it('leaves a young blob alone even when nothing points at it yet (its acceptance may be under way)', async () => {
    fresh();
    const young = await committed(store);
    const result = await sweepOrphans({
      store,
      referenced: () => Promise.resolve(new Set()),
      forget: () => Promise.resolve(),
      clock: () => Date.now(),
      orphanAfterMs: ORPHAN_AFTER_MS,
    });
    expect(result).toEqual({ deleted: 0, kept: 0 });
    expect(await store.readBuffer(young)).toBeDefined();
  });

  it('leaves nothing of an abandoned write visible after the sweep', async () => {
    fresh();
    const abandoned = store.begin();
    for (let i = 0; i < 8; i += 1) await abandoned.write(randomBytes(64 * 1024)); // past one batch: on disk
    await sweepOrphans({
      store,
      referenced: () => Promise.resolve(new Set()),
      forget: () => Promise.resolve(),
      clock: () => Date.now() + 2 * ORPHAN_AFTER_MS,
      orphanAfterMs: ORPHAN_AFTER_MS,
    });
    const left = [];
    for await (const blob of store.listOlderThan(Date.now() + 2 * ORPHAN_AFTER_MS)) left.push(blob);
    expect(left).toEqual([]);
    // The directory store keeps incomplete writes as files: none may be left on disk.
    if (kind.name === 'file') expect(readdirSync(join(fileURLToPath(place.url), '.incoming'))).toEqual([]);
    await abandoned.abort();
  });

  it('deletes the blobs whose retention is over and forgets them', async () => {
    fresh();
    const due = [await committed(store, 'one'), await committed(store, 'two')];
    const notDue = await committed(store, 'three');
    let queue = [...due];
    const forgotten: string[] = [];
    const deleted = await deleteExpiredBlobs({
      store,
      due: (_now, limit) => Promise.resolve(queue.slice(0, limit)),
      forget: (keys) => {
        forgotten.push(...keys);
        queue = queue.filter((k) => !keys.includes(k));
        return Promise.resolve();
      },
      clock: () => Date.now(),
    });
    expect(deleted).toBe(2);
    expect(forgotten).toEqual(due);
    for (const key of due) expect(await store.readBuffer(key)).toBeUndefined();
    expect((await store.readBuffer(notDue))?.toString()).toBe('three');
  });
});
