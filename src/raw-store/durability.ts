// How the file store makes a write durable: the file's bytes synced, then (after the rename) its
// directory. Alone, each commit fsyncs its file and its directory. With group commit the file's
// data is synced with fdatasync (a new file's size and blocks are part of that; its times are not
// needed to read it back), and the directory's fsync is shared (group-sync.ts): Node cannot
// reach syncfs(2), and each file's own bytes need their own sync, so the directory's is what
// commits finishing together can share. A failed fsync there breaks the store for good.
import { close as closeFd, fsync as fsyncFd, open as openFd } from 'node:fs';
import { type FileHandle, link, open, rename, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { IntakeError } from '../errors.js';
import { directorySyncs } from './directory-handles.js';
import { type GroupCommitSettings, type GroupSync, groupSync } from './group-sync.js';

/** The file system calls the store writes through; a test passes its own to record their order. */
export interface StoreFs {
  open(path: string, flags: 'r' | 'wx'): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, name: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** A directory opened for its fsyncs, kept open across commits (directory-handles.ts). */
  openDir(path: string): Promise<DirectoryHandle>;
}

export interface DirectoryHandle {
  sync(): Promise<void>;
  close(): Promise<void>;
}

const openDescriptor = promisify(openFd);
const syncDescriptor = promisify(fsyncFd);
const closeDescriptor = promisify(closeFd);

export const NODE_FS: StoreFs = {
  open: (path, flags) => open(path, flags),
  // A plain descriptor, not a FileHandle: a store dropped without close() leaks it until the
  // process ends instead of having it closed (and, in later Node, thrown) at garbage collection.
  openDir: async (path) => {
    const fd = await openDescriptor(path, 'r');
    return { sync: () => syncDescriptor(fd), close: () => closeDescriptor(fd) };
  },
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
  /** Closes the directory descriptors kept for fsyncs (each once its fsyncs in flight end). */
  close(): void;
}

export function durability(fs: StoreFs, group: GroupCommitSettings | undefined): Durability {
  const { sync: syncDir, close } = directorySyncs(fs);
  if (group === undefined) {
    return { file: (fh) => fh.sync(), dir: syncDir, usable: () => {}, close };
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
    close,
  };
}
