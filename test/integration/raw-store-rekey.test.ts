// `letter-intake rekey` after a key rotation (RAW_STORE_KEYS old,new), on a directory and on S3:
// every blob sealed under the old key is sealed again under the new one, in place (its key, and
// so its record and the blob index, stay), so that the old key can leave the keyring at once.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { stat, utimes } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntakeMarkers, markerRetention } from '../../src/intake/markers.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import { startHousekeeping } from '../../src/raw-store/housekeeping.js';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { keyIdOf, keyringOf } from '../../src/raw-store/sealing/keyring.js';
import { rekeyBlobs, rekeyMarkers } from '../../src/raw-store/sealing/rekey.js';
import { SEGMENT_BYTES } from '../../src/raw-store/sealing/seal-format.js';
import { sealedRawStore } from '../../src/raw-store/sealing/sealed-store.js';
import { deleteExpiredMarkers, sweepOrphans } from '../../src/raw-store/sweep.js';
import { capturedLogs } from '../helpers/captured-logs.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, testEnv } from '../helpers/gateway.js';
import { letterPdf } from '../helpers/pdf-samples.js';
import { runCommand } from '../helpers/processes.js';
import { blobsIn, RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { randomPrefix } from '../helpers/redis.js';
import { randomS3Url, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const OLD = Buffer.alloc(32, 51).toString('base64');
const NEW = Buffer.alloc(32, 52).toString('base64');
const NEW_ID = keyIdOf(Buffer.from(NEW, 'base64')).toString('hex');
const DAY_MS = 24 * 3600_000;

/** Commits `bytes` in 64 KiB chunks, as DATA hands them over. */
async function putChunked(store: RawStore, bytes: Buffer): Promise<string> {
  const write = store.begin();
  for (let at = 0; at < bytes.length; at += 64 * 1024) await write.write(bytes.subarray(at, at + 64 * 1024));
  await write.commit();
  return write.key;
}

async function streamed(store: RawStore, key: string): Promise<Buffer> {
  const stream = await store.read(key);
  if (stream === undefined) throw new Error(`no blob ${key}`);
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** The master key id a blob's header names, read from the stored bytes as they are. */
async function sealedUnder(plain: RawStore, key: string): Promise<string> {
  const bytes = await plain.readBuffer(key);
  return bytes?.subarray(4, 12).toString('hex') ?? 'no blob';
}

describe.each(RAW_STORE_KINDS)('rekey on a $name store', (kind) => {
  beforeAll(() => kind.setup());
  afterAll(() => kind.teardown());

  it('seals every blob again under the new key: after it the new key alone reads every blob and marker', async () => {
    const place = kind.fresh();
    const open = (keys?: readonly string[]) =>
      openRawStore({ ...place.settings(10_000), keyring: keys === undefined ? undefined : keyringOf(keys, 'test') });
    const before = open([OLD]);
    // empty, one byte short of a segment, one segment, several, and one past S3's multipart threshold
    const sizes = [0, SEGMENT_BYTES - 1, SEGMENT_BYTES, 3 * SEGMENT_BYTES + 5, 6 * 1024 * 1024];
    const blobs = new Map<string, Buffer>();
    for (const size of sizes) {
      const bytes = randomBytes(size);
      blobs.set(await putChunked(before, bytes), bytes);
    }
    await before.putMarker('accepted', 'in0001', '{"subject":"Kontoauszug"}', 'replace');
    before.close();

    const { code, text } = await runCommand(['rekey'], { ...testEnv(randomPrefix()), ...place.env, RAW_STORE_KEYS: `${OLD},${NEW}` });
    expect({ code, text }).toMatchObject({ code: 0 });

    const plain = open();
    const newOnly = open([NEW]);
    try {
      for (const [key, bytes] of blobs) {
        expect(await sealedUnder(plain, key)).toBe(NEW_ID);
        expect((await newOnly.readBuffer(key))?.equals(bytes)).toBe(true);
        expect((await streamed(newOnly, key)).equals(bytes)).toBe(true);
      }
      expect(await newOnly.getMarker('accepted', 'in0001')).toBe('{"subject":"Kontoauszug"}');
      expect(text).toContain(`${sizes.length} blob(s) sealed again under the writing key, 0 already under it, 0 did not open or failed`);
    } finally {
      plain.close();
      newOnly.close();
      place.cleanup();
    }
  }, 60_000);

  it('skips what is current, leaves what does not open as it is, and finishes what a crash cut short', async () => {
    const place = kind.fresh();
    const open = (keys?: readonly string[]) =>
      openRawStore({ ...place.settings(10_000), keyring: keys === undefined ? undefined : keyringOf(keys, 'test') });
    const plain = open();
    const oldStore = open([OLD]);
    const rotated = open([OLD, NEW]);
    const stranger = open([Buffer.alloc(32, 53).toString('base64')]);
    try {
      const bytes = randomBytes(2 * SEGMENT_BYTES + 7);
      const old1 = await putChunked(oldStore, bytes);
      const old2 = await putChunked(oldStore, bytes);
      const current = await putChunked(rotated, bytes); // a run before the crash got this far
      const foreign = await putChunked(stranger, bytes); // a key not in RAW_STORE_KEYS
      const unsealed = await putChunked(plain, Buffer.from('Subject: written before RAW_STORE_KEY\r\n\r\n'));
      const altered = await putChunked(oldStore, bytes);
      const tampered = Buffer.from((await plain.readBuffer(altered)) ?? Buffer.alloc(0));
      tampered[tampered.length - 20] = (tampered[tampered.length - 20] ?? 0) ^ 1; // inside the last segment
      const alteredWrite = await plain.replace(altered);
      await alteredWrite?.write(tampered);
      await alteredWrite?.commit();
      // The crash: the new version of old2 was being written, never committed.
      const cut = await plain.replace(old2);
      await cut?.write(Buffer.alloc(1000, 1));
      const untouched = new Map<string, Buffer | undefined>();
      for (const key of [foreign, unsealed, altered]) untouched.set(key, await plain.readBuffer(key));

      const told: string[] = [];
      const report = await rekeyBlobs(plain, keyringOf([OLD, NEW], 'test'), (key, err) => told.push(`${key} ${(err as Error).name}`));
      expect({ ...report, failed: report.failed.map((f) => f.key).sort() }).toEqual({
        rewritten: 2,
        current: 1,
        gone: 0,
        failed: [foreign, unsealed, altered].sort(),
      });
      expect(report.failed.find((f) => f.key === foreign)?.reason).toMatch(/not among RAW_STORE_KEYS/);
      expect(report.failed.find((f) => f.key === unsealed)?.reason).toMatch(/not a sealed blob/);
      expect(report.failed.find((f) => f.key === altered)?.reason).toMatch(/does not verify/);
      expect(told.sort()).toEqual([foreign, unsealed, altered].map((key) => `${key} SealBroken`).sort());
      for (const [key, before] of untouched) expect((await plain.readBuffer(key))?.equals(before ?? Buffer.alloc(1))).toBe(true);
      const newOnly = open([NEW]);
      for (const key of [old1, old2, current]) {
        expect(await sealedUnder(plain, key)).toBe(NEW_ID);
        expect((await newOnly.readBuffer(key))?.equals(bytes)).toBe(true);
      }
      newOnly.close();
      // Run again: nothing left to do but what does not open.
      const again = await rekeyBlobs(plain, keyringOf([OLD, NEW], 'test'));
      expect({ ...again, failed: again.failed.length }).toEqual({ rewritten: 0, current: 3, gone: 0, failed: 3 });
      await cut?.abort();
    } finally {
      for (const store of [plain, oldStore, rotated, stranger]) store.close();
      place.cleanup();
    }
  }, 60_000);

  it('streams a 10 MB blob: what its new version holds in memory stays far below the blob', async () => {
    const place = kind.fresh();
    const plain = openRawStore(place.settings(20_000));
    const oldStore = openRawStore({ ...place.settings(20_000), keyring: keyringOf([OLD], 'test') });
    try {
      const bytes = randomBytes(10 * 1024 * 1024);
      const key = await putChunked(oldStore, bytes);
      let largestPiece = 0;
      let mostHeld = 0;
      const watched: RawStore = {
        ...plain,
        async replace(asked) {
          const write = await plain.replace(asked);
          if (write === undefined) return undefined;
          return {
            ...write,
            get buffered() {
              return write.buffered;
            },
            write(piece) {
              largestPiece = Math.max(largestPiece, piece.length);
              const wait = write.write(piece);
              mostHeld = Math.max(mostHeld, write.buffered);
              return wait;
            },
          };
        },
      };
      expect(await rekeyBlobs(watched, keyringOf([OLD, NEW], 'test'))).toMatchObject({ rewritten: 1, failed: [] });
      expect(largestPiece).toBeLessThanOrEqual(SEGMENT_BYTES + 16);
      // The file store batches 256 KiB; the S3 store holds the one 5 MiB part in flight.
      expect(mostHeld).toBeLessThan(kind.name === 's3' ? 6 * 1024 * 1024 : 1024 * 1024);
      const newOnly = openRawStore({ ...place.settings(20_000), keyring: keyringOf([NEW], 'test') });
      expect((await newOnly.readBuffer(key))?.equals(bytes)).toBe(true);
      newOnly.close();
    } finally {
      plain.close();
      oldStore.close();
      place.cleanup();
    }
  }, 60_000);

  it('does not bring back a blob deleted while its new version was written', async () => {
    const place = kind.fresh();
    const plain = openRawStore(place.settings(10_000));
    const oldStore = openRawStore({ ...place.settings(10_000), keyring: keyringOf([OLD], 'test') });
    try {
      const key = await putChunked(oldStore, randomBytes(3 * SEGMENT_BYTES));
      // Retention (or an erase) deletes the blob once its new version is under way.
      const deleting: RawStore = {
        ...plain,
        async replace(asked) {
          const write = await plain.replace(asked);
          await plain.delete(asked);
          return write;
        },
      };
      expect(await rekeyBlobs(deleting, keyringOf([OLD, NEW], 'test'))).toEqual({ rewritten: 0, current: 0, gone: 1, failed: [] });
      expect(await plain.readBuffer(key)).toBeUndefined();
      expect((await blobsIn(plain)).committed).toEqual([]);
    } finally {
      plain.close();
      oldStore.close();
      place.cleanup();
    }
  });

  it('a rekeyed marker keeps its age: retention deletes the markers of an intake that ended before the retention period', async () => {
    const place = kind.fresh();
    const plain = openRawStore(place.settings(10_000));
    const oldStore = openRawStore({ ...place.settings(10_000), keyring: keyringOf([OLD], 'test') });
    const newOnly = openRawStore({ ...place.settings(10_000), keyring: keyringOf([NEW], 'test') });
    try {
      const endedAt = Date.now() - 40 * DAY_MS;
      await oldStore.putMarker('accepted', 'in0002', '{"subject":"Kontoauszug"}', 'replace');
      await oldStore.putMarker(
        'ended',
        'in0002',
        JSON.stringify({ v: 1, intakeId: 'in0002', outcome: 'submitted', at: endedAt }),
        'replace',
      );
      // On a directory the files are as old as the intake's end (a bucket's LastModified cannot be set).
      const { location } = place.settings();
      if (location.kind === 'file') {
        for (const marker of ['accepted', 'ended']) {
          await utimes(join(location.dir, marker, 'in0002'), endedAt / 1000, endedAt / 1000);
        }
      }
      expect(await rekeyMarkers(plain, keyringOf([OLD, NEW], 'test'))).toEqual({ rewritten: 2, current: 0, gone: 0, failed: [] });
      if (location.kind === 'file') {
        const { mtimeMs } = await stat(join(location.dir, 'ended', 'in0002'));
        expect(Math.round(mtimeMs / 1000)).toBe(Math.round(endedAt / 1000));
      }
      const markers = new IntakeMarkers(newOnly);
      const deleted = await deleteExpiredMarkers({
        store: newOnly,
        clock: Date.now,
        retentionMs: 30 * DAY_MS,
        ...markerRetention(markers),
      });
      expect(deleted).toBe(1);
      expect(await plain.getMarker('accepted', 'in0002')).toBeUndefined();
    } finally {
      for (const store of [plain, oldStore, newOnly]) store.close();
      place.cleanup();
    }
  });

  it('housekeeping reads an `ended/` marker only where a replace sets its time anew, a bounded number a round', async () => {
    const place = kind.fresh();
    const plain = openRawStore(place.settings(10_000));
    const oldStore = openRawStore({ ...place.settings(10_000), keyring: keyringOf([OLD], 'test') });
    const newOnly = openRawStore({ ...place.settings(10_000), keyring: keyringOf([NEW], 'test') });
    const { location } = place.settings();
    const ended = (id: string, at: number): string => JSON.stringify({ v: 1, intakeId: id, outcome: 'submitted', at });
    const housekeeping = (readsPerRound: number, reads: number[]): ReturnType<typeof startHousekeeping> => {
      const retention = markerRetention(new IntakeMarkers(newOnly));
      return startHousekeeping({
        store: newOnly,
        index: { referenced: async (keys) => new Set(keys), due: async () => [], forget: async () => undefined },
        clock: Date.now,
        logger: capturedLogs().logger,
        orphanAfterMs: DAY_MS,
        intervalMs: 3600_000,
        markers: {
          ...retention,
          retentionMs: 30 * DAY_MS,
          endedAt: async (id, modifiedAt) => {
            reads[reads.length - 1] = (reads.at(-1) ?? 0) + 1;
            return retention.endedAt?.(id, modifiedAt);
          },
        },
        markerReadsPerRound: readsPerRound,
      });
    };
    try {
      const endedAt = Date.now() - 40 * DAY_MS;
      // Five intakes that ended today, and one that ended 40 days ago whose markers rekey puts again.
      for (const n of [1, 2, 3, 4, 5]) await oldStore.putMarker('ended', `in010${n}`, ended(`in010${n}`, Date.now()), 'replace');
      await oldStore.putMarker('accepted', 'in0100', '{"subject":"Kontoauszug"}', 'replace');
      await oldStore.putMarker('ended', 'in0100', ended('in0100', endedAt), 'replace');
      if (location.kind === 'file') {
        for (const marker of ['accepted', 'ended']) await utimes(join(location.dir, marker, 'in0100'), endedAt / 1000, endedAt / 1000);
      }
      expect(await rekeyMarkers(plain, keyringOf([OLD, NEW], 'test'))).toMatchObject({ rewritten: 7, failed: [] });
      const reads: number[] = [];
      const running = housekeeping(2, reads);
      try {
        for (let round = 0; round < 3; round += 1) {
          reads.push(0);
          await running.runOnce();
        }
      } finally {
        await running.stop();
      }
      expect(await plain.getMarker('accepted', 'in0100')).toBeUndefined(); // expired by its end, not its put
      expect(await plain.getMarker('ended', 'in0101')).toBeDefined();
      if (location.kind === 'file')
        expect(reads).toEqual([0, 0, 0]); // the mtime is the end's
      else expect(reads).toEqual([2, 2, 2]); // six markers, two a round, each read once
    } finally {
      for (const store of [plain, oldStore, newOnly]) store.close();
      place.cleanup();
    }
  });

  it('does not bring back a marker deleted after rekey read it, nor set back one rewritten meanwhile', async () => {
    const place = kind.fresh();
    const plain = openRawStore(place.settings(10_000));
    const oldStore = openRawStore({ ...place.settings(10_000), keyring: keyringOf([OLD], 'test') });
    try {
      await oldStore.putMarker('accepted', 'in0003', '{"subject":"Kontoauszug"}', 'replace');
      await oldStore.putMarker('accepted', 'in0004', '{"subject":"Mahnung"}', 'replace');
      await oldStore.putMarker('ended', 'in0005', '{"outcome":"failed"}', 'replace');
      // Once rekey has read them, before it puts them back: retention (or an erase) deletes
      // in0003's marker, and a replay's end rewrites in0005's.
      const meanwhile = async (id: string): Promise<void> => {
        if (id === 'in0003') await plain.deleteMarker('accepted', id);
        if (id === 'in0005') await oldStore.putMarker('ended', id, '{"outcome":"submitted"}', 'replace');
      };
      const racing: RawStore = {
        ...plain,
        async putMarker(markerKind, id, body, mode) {
          await meanwhile(id);
          return plain.putMarker(markerKind, id, body, mode);
        },
        async replaceMarker(markerKind, id, was, body) {
          await meanwhile(id);
          return plain.replaceMarker(markerKind, id, was, body);
        },
      };
      expect(await rekeyMarkers(racing, keyringOf([OLD, NEW], 'test'))).toEqual({ rewritten: 1, current: 0, gone: 2, failed: [] });
      expect(await plain.getMarker('accepted', 'in0003')).toBeUndefined();
      expect(await oldStore.getMarker('ended', 'in0005')).toBe('{"outcome":"submitted"}');
      const newOnly = openRawStore({ ...place.settings(10_000), keyring: keyringOf([NEW], 'test') });
      expect(await newOnly.getMarker('accepted', 'in0004')).toBe('{"subject":"Mahnung"}');
      newOnly.close();
    } finally {
      for (const store of [plain, oldStore]) store.close();
      place.cleanup();
    }
  });

  it('the worker makes the letter from a blob rekeyed after its 250, with the old key gone', async () => {
    const place = kind.fresh();
    const settings = place.settings(10_000);
    const oldStore = openRawStore({ ...settings, keyring: keyringOf([OLD], 'test') });
    const newOnly = openRawStore({ ...settings, keyring: keyringOf([NEW], 'test') });
    const plain = openRawStore(settings);
    // The listener seals under the old key; the worker reads with the new key alone, and only
    // once rekey has run (its reads wait for that).
    const rekeyed = Promise.withResolvers<void>();
    const store: RawStore = {
      ...oldStore,
      read: async (key) => {
        await rekeyed.promise;
        return newOnly.read(key);
      },
      readBuffer: async (key, front) => {
        await rekeyed.promise;
        return newOnly.readBuffer(key, front);
      },
    };
    const gateway = await startTestGateway({ worker: true, rawStore: store });
    try {
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: await signedLetter({ title: 'Rechnung 2026-11', text: 'Anbei die Rechnung.', pdf: await letterPdf() }),
        helo: 'mta.acme.example',
      });
      const intakeId = intakeIdOf(replies.data?.text ?? '');
      const blobKey = (await gateway.store.get(intakeId))?.rawKey ?? '';
      expect(await sealedUnder(plain, blobKey)).not.toBe(NEW_ID);
      expect(await rekeyBlobs(plain, keyringOf([OLD, NEW], 'test'))).toMatchObject({ rewritten: 1, failed: [] });
      expect(await sealedUnder(plain, blobKey)).toBe(NEW_ID);
      rekeyed.resolve();
      expect((await gateway.settled(intakeId, 60_000)).state).toBe('submitted');
      expect(gateway.sandbox?.store.allLetters().find((l) => l.title === 'Rechnung 2026-11')).toBeDefined();
    } finally {
      rekeyed.resolve();
      await gateway.close();
      for (const s of [oldStore, newOnly, plain]) s.close();
      place.cleanup();
    }
  }, 90_000);
});

describe('rekey on a directory: a blob or marker deleted in the put itself', () => {
  it("a blob is not brought back when the delete lands between the store's claim and its rename", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-raw-'));
    const oldStore = sealedRawStore(fileRawStore({ dir, timeoutMs: 10_000 }), keyringOf([OLD], 'test'));
    const deleter = fileRawStore({ dir, timeoutMs: 10_000 });
    // An erase (or retention) unlinks the blob at the worst moment of the commit.
    const plain = fileRawStore({ dir, timeoutMs: 10_000, beforeReplacing: (key) => deleter.delete(key) });
    try {
      const key = await putChunked(oldStore, randomBytes(2 * SEGMENT_BYTES + 1));
      expect(await rekeyBlobs(plain, keyringOf([OLD, NEW], 'test'))).toEqual({ rewritten: 0, current: 0, gone: 1, failed: [] });
      expect(await plain.readBuffer(key)).toBeUndefined();
      expect(await blobsIn(plain)).toEqual({ committed: [], incomplete: [] });
    } finally {
      for (const store of [oldStore, deleter, plain]) store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a marker is not brought back when the delete lands between the store's claim and its rename", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-raw-'));
    const oldStore = sealedRawStore(fileRawStore({ dir, timeoutMs: 10_000 }), keyringOf([OLD], 'test'));
    const deleter = fileRawStore({ dir, timeoutMs: 10_000 });
    const plain = fileRawStore({
      dir,
      timeoutMs: 10_000,
      beforeReplacing: async (name) => {
        if (name === 'accepted/in0006') await deleter.deleteMarker('accepted', 'in0006');
      },
    });
    try {
      await oldStore.putMarker('accepted', 'in0006', '{"subject":"Kontoauszug"}', 'replace');
      await oldStore.putMarker('accepted', 'in0007', '{"subject":"Mahnung"}', 'replace');
      expect(await rekeyMarkers(plain, keyringOf([OLD, NEW], 'test'))).toEqual({ rewritten: 1, current: 0, gone: 1, failed: [] });
      expect(await plain.getMarker('accepted', 'in0006')).toBeUndefined();
      expect(await sealedRawStore(plain, keyringOf([NEW], 'test')).getMarker('accepted', 'in0007')).toBe('{"subject":"Mahnung"}');
      expect(readdirSync(join(dir, '.incoming'))).toEqual([]); // no side name or new version left
    } finally {
      for (const store of [oldStore, deleter, plain]) store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rekey on a directory: the orphan sweep runs while a replace is held', () => {
  it("neither an old blob's nor an old marker's new version is taken for an incomplete write", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-raw-'));
    const oldStore = sealedRawStore(fileRawStore({ dir, timeoutMs: 10_000 }), keyringOf([OLD], 'test'));
    const sweeper = fileRawStore({ dir, timeoutMs: 10_000 });
    const longAgo = (Date.now() - 3 * DAY_MS) / 1000;
    // A worker's sweep: every committed blob is referenced; incomplete writes older than a day go.
    const sweep = (): Promise<unknown> =>
      sweepOrphans({
        store: sweeper,
        referenced: async (keys) => new Set(keys),
        forget: async () => undefined,
        clock: Date.now,
        orphanAfterMs: DAY_MS,
      });
    const plain = fileRawStore({ dir, timeoutMs: 10_000, beforeReplacing: async () => void (await sweep()) });
    try {
      const key = await putChunked(oldStore, randomBytes(2 * SEGMENT_BYTES + 1));
      await utimes(join(dir, key), longAgo, longAgo);
      await oldStore.putMarker('accepted', 'in0008', '{"subject":"Gutschrift"}', 'replace');
      await utimes(join(dir, 'accepted', 'in0008'), longAgo, longAgo);
      const keyring = keyringOf([OLD, NEW], 'test');
      expect(await rekeyBlobs(plain, keyring)).toEqual({ rewritten: 1, current: 0, gone: 0, failed: [] });
      expect(await rekeyMarkers(plain, keyring)).toEqual({ rewritten: 1, current: 0, gone: 0, failed: [] });
      expect(await sealedUnder(plain, key)).toBe(NEW_ID);
      expect(await sealedRawStore(plain, keyringOf([NEW], 'test')).getMarker('accepted', 'in0008')).toBe('{"subject":"Gutschrift"}');
      expect(Math.round((await stat(join(dir, key))).mtimeMs / 1000)).toBe(Math.round(longAgo)); // the age is kept
      expect(readdirSync(join(dir, '.incoming'))).toEqual([]); // no side name left to refuse the next rekey
    } finally {
      for (const store of [oldStore, sweeper, plain]) store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A loopback proxy before s3rver (which ignores If-Match) that honours If-Match on a put or a
 * multipart completion as AWS S3 does: 404 (NoSuchKey, or `missingCode`) when the object is gone, 412 when its ETag
 * differs. `beforeConditionalPut` runs first (a deletion landing just then). Records each If-Match,
 * and apart those of multipart completions.
 */
async function ifMatchProxy(
  s3: S3Server,
  beforeConditionalPut: (path: string) => Promise<void>,
  missingCode = 'NoSuchKey',
): Promise<{ url: string; ifMatches: string[]; completions: string[]; close: () => Promise<void> }> {
  const direct = new S3Client({ ...s3.client, forcePathStyle: true });
  const ifMatches: string[] = [];
  const completions: string[] = [];
  const server = createServer((req, res) => {
    const forward = (): void => {
      const upstream = httpRequest(`${s3.endpoint}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    };
    const ifMatch = req.headers['if-match'];
    const url = new URL(req.url ?? '/', 'http://proxy');
    const conditional =
      typeof ifMatch === 'string' && (req.method === 'PUT' || (req.method === 'POST' && url.searchParams.has('uploadId')));
    if (!conditional || url.searchParams.has('partNumber')) return forward();
    ifMatches.push(ifMatch);
    if (req.method === 'POST') completions.push(url.pathname);
    const [, bucket, ...rest] = decodeURIComponent(url.pathname).split('/');
    const refuse = (status: number, code: string): void => {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
    };
    void (async () => {
      if (!rest.join('/').includes('.probe-')) await beforeConditionalPut(url.pathname);
      const head = await direct.send(new HeadObjectCommand({ Bucket: bucket, Key: rest.join('/') })).catch(() => undefined);
      if (head === undefined) return refuse(404, missingCode);
      if (head.ETag !== ifMatch) return refuse(412, 'PreconditionFailed');
      forward();
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    ifMatches,
    completions,
    close: async () => {
      direct.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

describe('rekey on an S3 store that honours If-Match', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3.stop());

  // A compatible store may name its 404 otherwise than NoSuchKey: the status decides.
  it.each(['NoSuchKey', 'NotFound'])(
    'puts the new version with the ETag the blob had: one deleted at the last moment is refused by the store (404 %s), not brought back, multipart too',
    async (missingCode) => {
      const location = parseRawStoreUrl(randomS3Url());
      const oldStore = openRawStore({
        location,
        timeoutMs: 10_000,
        s3PathStyle: true,
        s3Client: s3.client,
        keyring: keyringOf([OLD], 'test'),
      });
      const direct = openRawStore({ location, timeoutMs: 10_000, s3PathStyle: true, s3Client: s3.client });
      const kept = await putChunked(oldStore, randomBytes(SEGMENT_BYTES + 3));
      const deleted = await putChunked(oldStore, randomBytes(SEGMENT_BYTES + 3));
      // Over S3's 5 MiB part: a multipart upload, whose completion carries the If-Match.
      const deletedLarge = await putChunked(oldStore, randomBytes(6 * 1024 * 1024 + 5));
      // The deletion lands after rekey's last look, just before the store judges the put or the completion.
      const proxy = await ifMatchProxy(
        s3,
        async (path) => {
          for (const key of [deleted, deletedLarge]) if (path.endsWith(key)) await direct.delete(key);
        },
        missingCode,
      );
      const plain = openRawStore({ location, timeoutMs: 10_000, s3PathStyle: true, s3Client: { ...s3.client, endpoint: proxy.url } });
      try {
        const report = await rekeyBlobs(plain, keyringOf([OLD, NEW], 'test'));
        expect(report).toEqual({ rewritten: 1, current: 0, gone: 2, failed: [] });
        expect(proxy.ifMatches.filter((etag) => etag !== '"0"')).toHaveLength(3); // each put named the version it replaces
        expect(proxy.completions.filter((path) => path.endsWith(deletedLarge))).toHaveLength(1);
        expect(await direct.readBuffer(deleted)).toBeUndefined();
        expect(await direct.readBuffer(deletedLarge)).toBeUndefined();
        expect((await blobsIn(direct)).committed.sort()).toEqual([kept]);
        expect(await sealedUnder(direct, kept)).toBe(NEW_ID);
      } finally {
        for (const store of [oldStore, direct, plain]) store.close();
        await proxy.close();
      }
    },
  );
});
