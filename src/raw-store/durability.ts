// How the file store makes a write durable: the file's bytes synced, then (after the rename) its
// directory. Alone, each commit fsyncs its file and its directory. With group commit the file's
// data is synced with fdatasync (a new file's size and blocks are part of that; its times are not
// needed to read it back), and the directory's fsync is shared (group-sync.ts): Node cannot
// reach syncfs(2), and each file's own bytes need their own sync, so the directory's is what
// commits finishing together can share. A failed fsync there breaks the store for good.
import { type FileHandle, link, open, rename, unlink } from 'node:fs/promises';
import { IntakeError } from '../errors.js';
import { type GroupCommitSettings, type GroupSync, groupSync } from './group-sync.js';

/** The file system calls the store writes through; a test passes its own to record their order. */
export interface StoreFs {
  open(path: string, flags: 'r' | 'wx'): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, name: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export const NODE_FS: StoreFs = {
  open: (path, flags) => open(path, flags),
  rename: (from, to) => rename(from, to),
  link: (existing, name) => link(existing, name),
  unlink: (path) => unlink(path),
};

export interface Durability {
  /** The file's bytes on disk. */
  file(fh: FileHandle): Promise<void>;
  /** Every rename into `dir` finished before this call on disk. */
  dir(dir: string): Promise<void>;
  /** Throws once a shared fsync failed: the store answers 451 until the process restarts. */
  usable(): void;
}

export function durability(fs: StoreFs, group: GroupCommitSettings | undefined): Durability {
  const syncDir = async (path: string): Promise<void> => {
    const fh = await fs.open(path, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  };
  if (group === undefined) {
    return { file: (fh) => fh.sync(), dir: syncDir, usable: () => {} };
  }
  let broken: IntakeError | undefined;
  const dirs = new Map<string, GroupSync>();
  const usable = (): void => {
    if (broken !== undefined) throw broken;
  };
  return {
    async file(fh) {
      usable();
      await fh.datasync();
    },
    dir(path) {
      usable();
      let shared = dirs.get(path);
      if (shared === undefined) {
        const breakStore = (err: unknown): IntakeError => {
          const detail = err instanceof Error ? err.message : String(err);
          if (broken !== undefined) return broken;
          broken = new IntakeError(
            'StorageUnavailable',
            `raw store: the fsync of ${path} failed (${detail}); nothing written since is trusted until the process restarts`,
            { cause: err },
          );
          group.onBroken?.(broken);
          return broken;
        };
        shared = groupSync(() => syncDir(path), group, breakStore);
        dirs.set(path, shared);
      }
      return shared.sync();
    },
    usable,
  };
}
