// The file store's directory fsyncs go through one handle per directory, opened once and kept:
// every commit still syncs its directory, a handle whose fsync failed is dropped for a fresh one,
// and closing the store closes what it kept.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DirectoryHandle, NODE_FS, type StoreFs } from '../../src/raw-store/durability.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';

interface Counted {
  readonly fs: StoreFs;
  readonly opened: string[];
  readonly synced: string[];
  readonly closed: string[];
  /** The next `times` directory fsyncs of `dir` fail. */
  failNextSync(dir: string, times?: number): void;
  /** Directory fsyncs wait until the returned release is called. */
  holdSyncs(): () => void;
  /** Directory fsyncs waiting for a release. */
  waiting(): number;
}

function countingFs(): Counted {
  const opened: string[] = [];
  const synced: string[] = [];
  const closed: string[] = [];
  const failing = new Map<string, number>();
  let held: Promise<void> = Promise.resolve();
  let waiting = 0;
  const fs: StoreFs = {
    ...NODE_FS,
    openDir: async (path): Promise<DirectoryHandle> => {
      const dir = await NODE_FS.openDir(path);
      opened.push(path);
      return {
        sync: async () => {
          waiting++;
          await held;
          waiting--;
          const left = failing.get(path) ?? 0;
          if (left > 0) {
            failing.set(path, left - 1);
            throw Object.assign(new Error(`EIO: i/o error, fsync '${path}'`), { code: 'EIO' });
          }
          await dir.sync();
          synced.push(path);
        },
        close: async () => {
          closed.push(path);
          await dir.close();
        },
      };
    },
  };
  return {
    fs,
    opened,
    synced,
    closed,
    failNextSync: (dir, times = 1) => void failing.set(dir, times),
    holdSyncs: () => {
      let release = (): void => {};
      held = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    waiting: () => waiting,
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storeWith(counted: Counted): { store: ReturnType<typeof fileRawStore>; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'li-dir-handles-'));
  dirs.push(dir);
  return { store: fileRawStore({ dir, timeoutMs: 5000, fs: counted.fs }), dir };
}

async function commitBlob(store: ReturnType<typeof fileRawStore>, text: string): Promise<string> {
  const write = store.begin();
  await write.write(Buffer.from(text));
  await write.commit();
  return write.key;
}

const count = (paths: readonly string[], path: string): number => paths.filter((p) => p === path).length;

describe("the file store's directory handles", () => {
  it('opens each directory once for many commits and syncs it for every one', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    for (let i = 0; i < 20; i++) {
      await commitBlob(store, `message ${i}`);
      await store.putMarker('accepted', `in${i}`, `{"n":${i}}`, 'once');
    }
    expect(count(counted.opened, dir)).toBe(1);
    expect(count(counted.opened, join(dir, 'accepted'))).toBe(1);
    expect(count(counted.synced, dir)).toBe(20);
    expect(count(counted.synced, join(dir, 'accepted'))).toBe(20);
    expect(readdirSync(join(dir, 'accepted'))).toHaveLength(20);
  });

  it('drops a handle whose fsync failed: that commit fails, the next syncs through a fresh handle', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    await commitBlob(store, 'before');
    counted.failNextSync(dir);
    await expect(commitBlob(store, 'during')).rejects.toThrow(/EIO/);
    expect(counted.closed).toEqual([dir]);
    await commitBlob(store, 'after');
    expect(count(counted.opened, dir)).toBe(2);
    expect(count(counted.synced, dir)).toBe(2);
  });

  it('closes every handle it kept when the store closes', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    await commitBlob(store, 'one');
    await store.putMarker('ended', 'in1', '{}', 'replace');
    store.close();
    await expect.poll(() => [...counted.closed].sort()).toEqual([dir, join(dir, 'ended')].sort());
  });
  it('closes a descriptor once, after the last of the fsyncs sharing it has failed', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    await commitBlob(store, 'opens the descriptor');
    const release = counted.holdSyncs();
    counted.failNextSync(dir, 2);
    const both = Promise.allSettled([commitBlob(store, 'one'), commitBlob(store, 'two')]);
    await expect.poll(() => counted.waiting()).toBe(2); // both on the one descriptor
    release();
    expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect.poll(() => counted.closed).toEqual([dir]);
    await commitBlob(store, 'after');
    expect(count(counted.opened, dir)).toBe(2);
  });

  it('fails every fsync that shared the descriptor with one that failed, as each would have with a descriptor of its own', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    await commitBlob(store, 'opens the descriptor');
    const release = counted.holdSyncs();
    counted.failNextSync(dir, 1); // the file system fails one of the two; the other returns 0
    const both = Promise.allSettled([commitBlob(store, 'one'), commitBlob(store, 'two')]);
    await expect.poll(() => counted.waiting()).toBe(2);
    release();
    expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect.poll(() => counted.closed).toEqual([dir]);
  });

  it('closes a descriptor an fsync holds only when that fsync ends, and an fsync after close() opens and closes its own', async () => {
    const counted = countingFs();
    const { store, dir } = storeWith(counted);
    await commitBlob(store, 'opens the descriptor');
    const release = counted.holdSyncs();
    const during = commitBlob(store, 'during close');
    await expect.poll(() => counted.waiting()).toBe(1);
    store.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(counted.closed).toEqual([]);
    release();
    await during;
    await expect.poll(() => counted.closed).toEqual([dir]);
    await commitBlob(store, 'after close');
    await expect.poll(() => counted.closed).toEqual([dir, dir]);
    expect(count(counted.opened, dir)).toBe(2);
  });
});
