// One contract, every kind of raw store: what the listener, the worker and the sweep rely on.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntakeError, StartupError } from '../../src/errors.js';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { checkRawStoreAtStart, openRawStore } from '../../src/raw-store/open-store.js';
import { BlobChanged, type RawStore, type RawWrite, type StoredBlob } from '../../src/raw-store/raw-store.js';
import { freshRawStores, RAW_STORE_KINDS } from '../helpers/raw-stores.js';

const MiB = 1024 * 1024;
const HOUR_MS = 3600 * 1000;

/** Writes `data` in `chunkBytes` pieces, waiting whenever the store asks to. */
async function writeAll(write: RawWrite, data: Buffer, chunkBytes = 64 * 1024): Promise<void> {
  for (let at = 0; at < data.length; at += chunkBytes) await write.write(data.subarray(at, at + chunkBytes));
}

async function listAll(store: RawStore, before: number): Promise<StoredBlob[]> {
  const blobs: StoredBlob[] = [];
  for await (const blob of store.listOlderThan(before)) blobs.push(blob);
  return blobs;
}

describe.each(RAW_STORE_KINDS)('the $name raw store', (kind) => {
  let store: RawStore;
  const open = freshRawStores(kind);
  const fresh = (): RawStore => {
    store = open().store;
    return store;
  };

  it('gives back a committed message byte for byte, whole and as a stream', async () => {
    fresh();
    const message = Buffer.from('Subject: a letter\r\n\r\nbody \u00e9\r\n', 'utf8');
    const write = store.begin();
    await writeAll(write, message, 7);
    await write.commit();
    expect(await store.readBuffer(write.key)).toEqual(message);
    const stream = await store.read(write.key);
    expect(stream === undefined ? undefined : await text(stream)).toBe(message.toString('utf8'));
  });

  it('keeps a 14 MiB message written while it arrives, byte for byte', async () => {
    fresh();
    const message = randomBytes(14 * MiB);
    const write = store.begin();
    await writeAll(write, message);
    await write.commit();
    const back = await store.readBuffer(write.key);
    expect(back?.length).toBe(message.length);
    expect(back?.equals(message)).toBe(true);
  });

  it('replaces a committed blob under its own key only at commit, and not one that is gone', async () => {
    fresh();
    const first = store.begin();
    await writeAll(first, Buffer.from('version one'));
    await first.commit();
    expect(await store.replace('00000000-0000-4000-8000-000000000000.eml')).toBeUndefined();
    const second = await store.replace(first.key);
    expect(second?.key).toBe(first.key);
    await second?.write(Buffer.from('version two, longer'));
    expect((await store.readBuffer(first.key))?.toString()).toBe('version one'); // until the commit
    await second?.commit();
    expect((await store.readBuffer(first.key))?.toString()).toBe('version two, longer');
    const abandoned = await store.replace(first.key);
    await abandoned?.write(Buffer.from('never committed'));
    await abandoned?.abort();
    expect((await store.readBuffer(first.key))?.toString()).toBe('version two, longer');
    const late = await store.replace(first.key);
    await late?.write(Buffer.from('too late'));
    await store.delete(first.key);
    await expect(late?.commit()).rejects.toThrow(BlobChanged);
    expect(await store.readBuffer(first.key)).toBeUndefined();
    expect(await listAll(store, Date.now() + HOUR_MS)).toEqual([]); // no new version left behind
  });

  it('reads a blob behind the bytes given to put in front, in one buffer', async () => {
    fresh();
    const message = randomBytes(3 * MiB + 17);
    const write = store.begin();
    await writeAll(write, message);
    await write.commit();
    const front = Buffer.from('Authentication-Results: mx.example; dkim=pass (\u00e9)\r\n', 'utf8');
    const back = await store.readBuffer(write.key, front);
    expect(back?.length).toBe(front.length + message.length);
    expect(back?.subarray(0, front.length).equals(front)).toBe(true);
    expect(back?.subarray(front.length).equals(message)).toBe(true);
    expect((await store.readBuffer(write.key, Buffer.alloc(0)))?.equals(message)).toBe(true);
    expect(await store.readBuffer('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml', front)).toBeUndefined();
  });

  it('keeps messages written at the same time apart, each byte for byte', async () => {
    fresh();
    // many writes at once, their chunks interleaved and never waited for: batches of one
    // message are in flight while the others' are gathered
    const messages = Array.from({ length: 12 }, (_, i) => randomBytes(MiB + i * 4099));
    const writes = messages.map(() => store.begin());
    const chunkBytes = 48 * 1024 + 17;
    const longest = Math.max(...messages.map((m) => m.length));
    const pending: Promise<void>[] = [];
    for (let at = 0; at < longest; at += chunkBytes) {
      messages.forEach((message, i) => {
        if (at >= message.length) return;
        const waited = writes[i]?.write(message.subarray(at, at + chunkBytes));
        if (waited !== undefined) pending.push(waited);
      });
    }
    await Promise.all(pending);
    await Promise.all(writes.map((w) => w.commit()));
    const back = await Promise.all(writes.map((w) => store.readBuffer(w.key)));
    expect(back.map((stored, i) => stored?.equals(messages[i] ?? Buffer.alloc(0)))).toEqual(messages.map(() => true));
  });

  it('holds at most about one part of a message in memory while writing it, and nothing once committed', async () => {
    fresh();
    const write = store.begin();
    let most = 0;
    const chunk = randomBytes(64 * 1024);
    for (let i = 0; i < 14 * 16; i += 1) {
      await write.write(chunk);
      most = Math.max(most, write.buffered);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(5 * MiB + 2 * chunk.length); // S3's part size; a directory holds far less
    await write.commit();
    expect(write.buffered).toBe(0);
  });

  it('keeps an empty message', async () => {
    fresh();
    const write = store.begin();
    await write.commit();
    expect(await store.readBuffer(write.key)).toEqual(Buffer.alloc(0));
  });

  it('hands out a new key for every write', () => {
    fresh();
    const keys = new Set(Array.from({ length: 50 }, () => store.begin().key));
    expect(keys.size).toBe(50);
  });

  it('shows nothing of a write before it is committed', async () => {
    fresh();
    const write = store.begin();
    await writeAll(write, randomBytes(MiB));
    expect(await store.readBuffer(write.key)).toBeUndefined();
    expect(await store.read(write.key)).toBeUndefined();
    const listed = await listAll(store, Date.now() + HOUR_MS);
    expect(listed.filter((b) => !b.incomplete).map((b) => b.key)).not.toContain(write.key);
    await write.abort();
  });

  it('leaves nothing behind after an aborted write', async () => {
    fresh();
    const write = store.begin();
    await writeAll(write, randomBytes(MiB));
    await write.abort();
    expect(await store.readBuffer(write.key)).toBeUndefined();
    expect(await listAll(store, Date.now() + HOUR_MS)).toEqual([]);
  });

  it('answers undefined for a key it never stored', async () => {
    fresh();
    expect(await store.readBuffer('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml')).toBeUndefined();
    expect(await store.read('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml')).toBeUndefined();
  });

  it('deletes a blob, and deleting it again is no error', async () => {
    fresh();
    const write = store.begin();
    await writeAll(write, Buffer.from('x'));
    await write.commit();
    await store.delete(write.key);
    await store.delete(write.key);
    expect(await store.readBuffer(write.key)).toBeUndefined();
  });

  it('lists committed blobs modified before the bound, and only those', async () => {
    fresh();
    const startedAt = Date.now();
    const write = store.begin();
    await writeAll(write, Buffer.from('a letter'));
    await write.commit();
    const later = await listAll(store, Date.now() + HOUR_MS);
    expect(later.map((b) => ({ key: b.key, incomplete: b.incomplete }))).toEqual([{ key: write.key, incomplete: false }]);
    expect(later[0]?.modifiedAt).toBeGreaterThan(startedAt - 5000);
    expect(await listAll(store, startedAt - HOUR_MS)).toEqual([]);
  });

  it('refuses keys it never hands out (no way out of its place)', async () => {
    fresh();
    await expect(store.readBuffer('../outside.eml')).rejects.toThrow(/not a raw store key/);
    await expect(store.delete('a/b.eml')).rejects.toThrow(/not a raw store key/);
  });

  it('passes its check, and the check leaves nothing behind', async () => {
    fresh();
    await store.check();
    expect(await listAll(store, Date.now() + HOUR_MS)).toEqual([]);
  });
});

describe('a raw store that cannot be used', () => {
  const s3 = RAW_STORE_KINDS.find((k) => k.name === 's3');
  beforeAll(() => s3?.setup());
  afterAll(() => s3?.teardown());

  it('fails the file store check when the directory is a file, naming RAW_STORE_URL at start', async () => {
    const path = join(tmpdir(), `letter-intake-not-a-dir-${randomBytes(4).toString('hex')}`);
    writeFileSync(path, 'not a directory');
    const location = parseRawStoreUrl(`file://${path}`);
    const store = openRawStore({ location, timeoutMs: 1000, s3PathStyle: false });
    await expect(store.check()).rejects.toBeInstanceOf(IntakeError);
    const started = checkRawStoreAtStart(store, location);
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(/RAW_STORE_URL/);
    const write = store.begin();
    await expect(Promise.resolve(write.write(randomBytes(512 * 1024)))).rejects.toMatchObject({ code: 'StorageUnavailable' });
  });

  it('fails the S3 check for a bucket that does not exist, naming RAW_STORE_URL at start', async () => {
    if (s3 === undefined) throw new Error('no s3 kind in the matrix');
    const place = s3.fresh();
    const settings = place.settings(2000);
    const location = parseRawStoreUrl('s3://no-such-bucket-here/raw');
    const store = openRawStore({ ...settings, location });
    try {
      await expect(store.check()).rejects.toMatchObject({ code: 'StorageUnavailable', message: expect.stringMatching(/NoSuchBucket/) });
      await expect(checkRawStoreAtStart(store, location)).rejects.toThrow(/s3:\/\/no-such-bucket-here\/raw\/.*RAW_STORE_URL/);
    } finally {
      store.close();
    }
  });
});
