// The file:// raw store: one file per message in a directory (local disk, or a shared mount for
// several hosts). A write goes to `.incoming/<key>` while DATA arrives; commit flushes it,
// fsyncs the file, renames it to `<key>` and fsyncs the directory, so a committed blob
// survives a power cut and a crash leaves at most an incomplete file the sweep removes. With group
// commit the directory's fsync is shared by the commits that finish together (durability.ts).
// A replace (rekey) puts a new version over a blob or marker only while it is still there, and a
// delete landing meanwhile is not undone (`claimedRename`, `unlinkReplaced`).
import { randomUUID } from 'node:crypto';
import { type FileHandle, link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BatchBuffers } from './batch-buffers.js';
import { INCOMPLETE_PREFIX, isBlobKey, newBlobKey } from './blob-key.js';
import { bounded } from './bounded.js';
import { type Durability, durability, NODE_FS, type StoreFs } from './durability.js';
import type { GroupCommitSettings } from './group-sync.js';
import {
  BlobChanged,
  isMarkerId,
  MARKER_KINDS,
  type MarkerKind,
  type RawStore,
  type RawWrite,
  type StoredBlob,
  type StoredMarker,
} from './raw-store.js';

export interface FileStoreOptions {
  readonly dir: string;
  /** Bound on each operation (a hung mount fails instead of stalling a session). */
  readonly timeoutMs: number;
  /** Chunks are gathered up to this many bytes before each write to the file. */
  readonly batchBytes?: number;
  /** Commits finishing together share the directory's fsync; absent: each commit fsyncs it alone. */
  readonly groupCommit?: GroupCommitSettings | undefined;
  /** The calls that write, sync and rename (tests record their order); default: node:fs. */
  readonly fs?: StoreFs;
  /**
   * Runs inside a replace once the old version is claimed, before the new one goes in place
   * (tests land a delete there), with the blob key or `<kind>/<id>` for a marker.
   */
  readonly beforeReplacing?: (name: string) => Promise<void>;
}

export const DEFAULT_BATCH_BYTES = 256 * 1024;
/** Batch buffers kept for reuse by one store (each twice the batch size: a batch ends past it by up to a chunk). */
const REUSED_BATCH_BUFFERS = 8;

export function fileRawStore(options: FileStoreOptions): RawStore {
  const { dir, timeoutMs } = options;
  const incomingDir = join(dir, INCOMPLETE_PREFIX);
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const buffers = new BatchBuffers(2 * batchBytes, REUSED_BATCH_BUFFERS);
  const fs = options.fs ?? NODE_FS;
  const durable = durability(fs, options.groupCommit);
  let ready: Promise<unknown> | undefined;
  const ensureDirs = (): Promise<unknown> => {
    // Created once; a failure is retried by the next caller.
    const dirs = [incomingDir, ...MARKER_KINDS.map((kind) => join(dir, kind))];
    ready ??= Promise.all(dirs.map((path) => mkdir(path, { recursive: true }))).catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };
  const pathOf = (key: string): string => {
    if (!isBlobKey(key)) throw new Error(`not a raw store key: ${JSON.stringify(key)}`);
    return join(dir, key);
  };
  const markerPath = (kind: MarkerKind, id: string): string => {
    if (!isMarkerId(id)) throw new Error(`not a marker id: ${JSON.stringify(id)}`);
    return join(dir, kind, id);
  };
  /** The second name a replace gives the version it replaces (see claimedRename); not a blob key, so no sweep takes it. */
  const blobSide = (key: string): string | undefined =>
    key.startsWith(INCOMPLETE_PREFIX) ? undefined : join(incomingDir, `.replacing.${key}`);
  const markerSide = (kind: MarkerKind, id: string): string => join(incomingDir, `.replacing.${kind}.${id}`);

  return {
    location: `file://${dir}`,
    begin: () => fileWrite({ dir, ensureDirs, timeoutMs, batchBytes, buffers, fs, durable }),
    async replace(key) {
      const path = pathOf(key);
      const before = await bounded(stat(path).catch(absentAsUndefined), timeoutMs, `stat ${key}`);
      if (before === undefined) return undefined;
      const side = blobSide(key);
      if (side === undefined) throw new Error(`not a committed blob: ${JSON.stringify(key)}`);
      return fileWrite(
        { dir, ensureDirs, timeoutMs, batchBytes, buffers, fs, durable },
        { key, side, modifiedAt: before.mtime, hook: options.beforeReplacing },
      );
    },
    async read(key) {
      const handle = await bounded(openIfPresent(fs, pathOf(key)), timeoutMs, `open ${key}`);
      return handle?.createReadStream() satisfies Readable | undefined;
    },
    async readBuffer(key, front = NOTHING) {
      const read = async (): Promise<Buffer | undefined> => {
        const handle = await openIfPresent(fs, pathOf(key));
        if (handle === undefined) return undefined;
        try {
          return await readBehind(handle, front);
        } finally {
          await handle.close();
        }
      };
      return bounded(read(), timeoutMs, `read ${key}`);
    },
    async delete(key) {
      await bounded(unlinkReplaced(pathOf(key), blobSide(key)), timeoutMs, `delete ${key}`);
    },
    async *listOlderThan(before) {
      yield* listDir(dir, '', before, timeoutMs);
      yield* listDir(incomingDir, INCOMPLETE_PREFIX, before, timeoutMs);
    },
    async putMarker(kind, id, body, mode) {
      const path = markerPath(kind, id);
      const put = async (): Promise<'written' | 'exists'> => {
        await ensureDirs();
        return writeMarker(fs, durable, incomingDir, path, body, mode);
      };
      return bounded(put(), timeoutMs, `put ${kind}/${id}`);
    },
    async replaceMarker(kind, id, was, body) {
      const path = markerPath(kind, id);
      const put = async (): Promise<'written' | 'gone'> => {
        await ensureDirs();
        const before = await stat(path).catch(absentAsUndefined);
        if (before === undefined) return 'gone';
        const temp = join(incomingDir, `.marker-${randomUUID()}`);
        await writeSynced(temp, body, before.mtime);
        const still = async (side: string): Promise<boolean> => (await readFile(side, 'utf8')) === was;
        const claimed = (): Promise<void> | undefined => options.beforeReplacing?.(`${kind}/${id}`);
        if (!(await claimedRename(temp, path, markerSide(kind, id), still, claimed))) return 'gone';
        await durable.dir(join(dir, kind));
        return 'written';
      };
      return bounded(put(), timeoutMs, `replace ${kind}/${id}`);
    },
    async getMarker(kind, id) {
      const path = markerPath(kind, id);
      return bounded(readFile(path, 'utf8').catch(absentAsUndefined), timeoutMs, `get ${kind}/${id}`);
    },
    async deleteMarker(kind, id) {
      await bounded(unlinkReplaced(markerPath(kind, id), markerSide(kind, id)), timeoutMs, `delete ${kind}/${id}`);
    },
    async *listMarkers(kind) {
      const path = join(dir, kind);
      const entries = await bounded(readdir(path, { withFileTypes: true }).catch(absentAsUndefined), timeoutMs, `list ${kind}`);
      for (const entry of entries ?? []) {
        if (!entry.isFile() || !isMarkerId(entry.name)) continue;
        const info = await bounded(stat(join(path, entry.name)).catch(absentAsUndefined), timeoutMs, `stat ${kind}/${entry.name}`);
        if (info !== undefined) yield { id: entry.name, modifiedAt: info.mtimeMs } satisfies StoredMarker;
      }
    },
    exclusiveCreate: () => Promise.resolve(true), // a hard link fails when the name exists
    keepsTimesOnReplace: true, // replaceMarker sets the old mtime on the new version
    async check() {
      durable.usable(); // a store whose fsync failed is not ready: a restart reopens it
      await bounded(probe(fs, incomingDir, ensureDirs), timeoutMs, `check ${dir}`);
    },
    close() {
      durable.close();
    },
  };
}

/** A new version of a committed blob: renamed over it only if it is still there (claimedRename). */
interface Replacing {
  readonly key: string;
  readonly side: string;
  /** Kept on the new version: the orphan sweep judges a blob's age by it. */
  readonly modifiedAt: Date;
  readonly hook?: ((key: string) => Promise<void>) | undefined;
}

interface WriteContext {
  readonly dir: string;
  readonly ensureDirs: () => Promise<unknown>;
  readonly timeoutMs: number;
  readonly batchBytes: number;
  readonly buffers: BatchBuffers;
  readonly fs: StoreFs;
  readonly durable: Durability;
}

function fileWrite({ dir, ensureDirs, timeoutMs, batchBytes, buffers, fs, durable }: WriteContext, replacing?: Replacing): RawWrite {
  const key = replacing?.key ?? newBlobKey();
  // A new version is written under a fresh name beside the new blobs: a crash leaves an
  // incomplete write that the sweep removes, and the committed blob as it was.
  const temp = join(dir, INCOMPLETE_PREFIX, replacing === undefined ? key : newBlobKey());
  let handle: Promise<FileHandle> | undefined;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Bytes of batches handed to the file system and not yet written. */
  let inFlight = 0;
  // Writes run one after another even if a caller does not wait (appends must keep their order).
  let chain: Promise<void> = Promise.resolve();

  const file = (): Promise<FileHandle> => (handle ??= ensureDirs().then(() => fs.open(temp, 'wx')));
  const flush = (): Promise<void> => {
    const batch = buffers.gather(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    inFlight += batch.length;
    chain = chain
      .then(async () => {
        const fh = await file();
        await fh.write(batch);
      })
      .finally(() => {
        inFlight -= batch.length;
        buffers.release(batch); // the write is over, whatever its outcome
      });
    return bounded(chain, timeoutMs, `write ${key}`);
  };

  return {
    key,
    write(chunk) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      return pendingBytes >= batchBytes ? flush() : undefined;
    },
    async commit() {
      await flush();
      const commit = async (): Promise<void> => {
        durable.usable();
        const fh = await file();
        if (replacing !== undefined) await fh.utimes(replacing.modifiedAt, replacing.modifiedAt);
        // a replaced blob's mtime is its age for the orphan sweep: synced with its bytes
        await (replacing === undefined ? durable.file(fh) : fh.sync());
        await fh.close();
        if (replacing === undefined) {
          await fs.rename(temp, join(dir, key));
        } else if (!(await claimedRename(temp, join(dir, key), replacing.side, undefined, () => replacing.hook?.(key)))) {
          // A blob deleted meanwhile (retention, erase), even during this commit, is not brought back.
          throw new BlobChanged(`blob ${key} went while its new version was written`);
        }
        await durable.dir(dir); // the rename itself is durable only once the directory is synced
      };
      await bounded(commit(), timeoutMs, `commit ${key}`);
    },
    async abort() {
      pending = [];
      const opened = handle;
      if (opened === undefined) return;
      const drop = async (): Promise<void> => {
        await chain.catch(() => undefined);
        await opened.then((fh) => fh.close()).catch(() => undefined);
        await fs.unlink(temp).catch(absentAsUndefined);
      };
      await bounded(drop(), timeoutMs, `abort ${key}`);
    },
    get buffered() {
      return pendingBytes + inFlight;
    },
  };
}

async function* listDir(path: string, keyPrefix: string, before: number, timeoutMs: number): AsyncIterable<StoredBlob> {
  const entries = await bounded(readdir(path, { withFileTypes: true }).catch(absentAsUndefined), timeoutMs, `list ${path}`);
  for (const entry of entries ?? []) {
    if (!entry.isFile()) continue;
    const key = keyPrefix + entry.name;
    if (!isBlobKey(key)) continue; // not ours
    const info = await bounded(stat(join(path, entry.name)).catch(absentAsUndefined), timeoutMs, `stat ${key}`);
    if (info === undefined) continue;
    const incomplete = keyPrefix !== '';
    // An incomplete write's age is its last change: a replace's new version carries the old
    // mtime before its rename, but setting it bumped the ctime, which nothing backdates.
    const changedAt = incomplete ? Math.max(info.mtimeMs, info.ctimeMs) : info.mtimeMs;
    if (changedAt < before) yield { key, modifiedAt: changedAt, incomplete };
  }
}

/** Writes, syncs, reads back and deletes a file: the directory exists and is writable. */
async function probe(fs: StoreFs, incomingDir: string, ensureDirs: () => Promise<unknown>): Promise<void> {
  await ensureDirs();
  const path = join(incomingDir, `.probe-${randomUUID()}`);
  const content = `probe ${path}\n`;
  const fh = await fs.open(path, 'wx');
  try {
    await fh.write(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  const back = await readFile(path, 'utf8');
  await fs.unlink(path);
  if (back !== content) throw new Error('read back different bytes than written');
}

/**
 * A marker whole or not at all: written and fsynced beside the blobs' incomplete writes, then
 * renamed over (replace) or hard-linked to (once: the link fails when the name exists, so two
 * writers never both create it) its name, and the directory synced.
 */
async function writeMarker(
  fs: StoreFs,
  durable: Durability,
  incomingDir: string,
  path: string,
  body: string,
  mode: 'replace' | 'once',
): Promise<'written' | 'exists'> {
  durable.usable();
  const temp = join(incomingDir, `.marker-${randomUUID()}`);
  const fh = await fs.open(temp, 'wx');
  try {
    await fh.write(body);
    await durable.file(fh);
  } finally {
    await fh.close();
  }
  try {
    if (mode === 'replace') {
      await fs.rename(temp, path);
    } else {
      const linked = await fs.link(temp, path).then(
        () => true,
        (err: unknown) => {
          if (err instanceof Error && 'code' in err && err.code === 'EEXIST') return false;
          throw err;
        },
      );
      await fs.unlink(temp);
      if (!linked) return 'exists';
    }
  } catch (err) {
    await fs.unlink(temp).catch(() => undefined);
    throw err;
  }
  await durable.dir(join(path, '..'));
  return 'written';
}

/**
 * Renames `temp` over `path` only if what is at `path` is not deleted before or during the
 * rename; false (and `temp` gone) when it went. POSIX has no "rename only if the target is
 * still this file", so the old version is claimed under a second name that every delete also
 * removes (unlinkReplaced):
 *   1. link path → side: ENOENT means it went already;
 *   2. `still(side)`: the version claimed is the one expected (a marker's body);
 *   3. rename temp → path: a reader sees the old version or the new one, never none;
 *   4. unlink side: ENOENT means a delete ran since 1, so the new version is unlinked too.
 * A delete unlinks path, side, path: whichever step of this it meets, either this finds side
 * gone (4) or the delete's last unlink removes the new version. EEXIST at 1 (another replace of
 * the same name, or a leftover of one cut short by a crash) fails, touching nothing; a failure
 * after 1 removes side. Only deletes are guarded: a rename over `path` by another writer between
 * 1 and 3 (a marker put with 'replace') leaves side on the old inode, so 2 and 4 pass and 3 puts
 * the older version back over it.
 */
async function claimedRename(
  temp: string,
  path: string,
  side: string,
  still?: (side: string) => Promise<boolean>,
  claimed?: () => Promise<void> | undefined,
): Promise<boolean> {
  try {
    const linked = await link(path, side).then(
      () => true,
      (err: unknown) => {
        if (codeOf(err) === 'ENOENT') return false;
        if (codeOf(err) === 'EEXIST')
          throw new Error(`${side} exists: a replace of it is under way, or one was cut short (remove it once none runs)`);
        throw err;
      },
    );
    if (!linked) return false;
    try {
      if (still !== undefined && !(await still(side))) {
        await unlink(side).catch(absentAsUndefined);
        return false;
      }
      await claimed?.();
      await rename(temp, path);
    } catch (err) {
      // path holds the old version or the new one: the claim goes, or it would refuse every later replace
      await unlink(side).catch(absentAsUndefined);
      throw err;
    }
  } finally {
    await unlink(temp).catch(absentAsUndefined);
  }
  const deletedMeanwhile = await unlink(side).then(
    () => false,
    (err: unknown) => absentAsUndefined(err) ?? true,
  );
  if (deletedMeanwhile) await unlink(path).catch(absentAsUndefined);
  return !deletedMeanwhile;
}

/** A delete that a replace running at the same time does not undo (claimedRename). */
async function unlinkReplaced(path: string, side: string | undefined): Promise<void> {
  await unlink(path).catch(absentAsUndefined);
  if (side === undefined) return;
  await unlink(side).catch(absentAsUndefined);
  await unlink(path).catch(absentAsUndefined);
}

/** A file written and fsynced under a fresh name, with the given mtime. */
async function writeSynced(path: string, body: string, modifiedAt: Date): Promise<void> {
  const fh = await open(path, 'wx');
  try {
    await fh.write(body);
    await fh.utimes(modifiedAt, modifiedAt);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const NOTHING = new Uint8Array(0);

/**
 * The file's bytes behind `front`, read straight into one buffer sized from the file's length
 * (a committed blob does not change). For a 13.7 MB message this is one fresh buffer instead of
 * two and a copy: V8 answers fresh external memory with full collections.
 */
async function readBehind(handle: FileHandle, front: Uint8Array): Promise<Buffer> {
  const { size } = await handle.stat();
  const whole = Buffer.allocUnsafe(front.length + size);
  whole.set(front);
  let filled = front.length;
  while (filled < whole.length) {
    const { bytesRead } = await handle.read(whole, filled, whole.length - filled, filled - front.length);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return whole.subarray(0, filled);
}

async function openIfPresent(fs: StoreFs, path: string): Promise<FileHandle | undefined> {
  return fs.open(path, 'r').catch(absentAsUndefined);
}

function absentAsUndefined(err: unknown): undefined {
  if (codeOf(err) === 'ENOENT') return undefined;
  throw err;
}

function codeOf(err: unknown): unknown {
  return err instanceof Error && 'code' in err ? err.code : undefined;
}
