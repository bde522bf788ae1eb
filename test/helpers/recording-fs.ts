// A file system for the file raw store (StoreFs) that does the real calls and records each one's
// start and end in one ordered log, so that a test can show what came before what: a file's
// sync, its rename, the directory's fsync, and (logged by the test) the reply a client got.
// A hook may hold or fail a sync before it runs.
import type { FileHandle } from 'node:fs/promises';
import { NODE_FS, type StoreFs } from '../../src/raw-store/durability.js';

export type FsOp = 'write' | 'sync' | 'datasync' | 'rename' | 'link' | 'reply';

export interface FsEvent {
  /** Position in the log: the order of starts and ends across every call. */
  readonly seq: number;
  readonly op: FsOp;
  readonly phase: 'start' | 'end' | 'failed';
  /** The call this event belongs to: a call's start and its end or failure share it. */
  readonly call: number;
  readonly path: string;
  /** A rename's or link's new name; a reply's text. */
  readonly to?: string;
}

export interface RecordingFs {
  readonly fs: StoreFs;
  readonly events: FsEvent[];
  /** Logs an event of the test's own (a reply received) in the same order. */
  note(op: FsOp, path: string, to?: string): void;
  /** Resolves once the log satisfies `condition` (checked at every event). */
  until(condition: (events: readonly FsEvent[]) => boolean): Promise<void>;
}

/** Called before a sync (`sync` on a directory or a file, `datasync` on a file): may wait, or throw to fail it. */
export type SyncHook = (op: 'sync' | 'datasync', path: string) => Promise<void> | undefined;

export function recordingFs(hook: SyncHook = () => undefined): RecordingFs {
  const events: FsEvent[] = [];
  let seq = 0;
  let calls = 0;
  let watchers: { condition: (events: readonly FsEvent[]) => boolean; met: () => void }[] = [];
  const log = (op: FsOp, phase: FsEvent['phase'], path: string, to: string | undefined, call: number): void => {
    events.push({ seq: seq++, op, phase, call, path, ...(to === undefined ? {} : { to }) });
    const met = watchers.filter((w) => w.condition(events));
    watchers = watchers.filter((w) => !met.includes(w));
    for (const w of met) w.met();
  };
  const timed = async <T>(op: FsOp, path: string, to: string | undefined, work: () => Promise<T>): Promise<T> => {
    const call = calls++;
    log(op, 'start', path, to, call);
    try {
      const result = await work();
      log(op, 'end', path, to, call);
      return result;
    } catch (err) {
      log(op, 'failed', path, to, call);
      throw err;
    }
  };
  const wrap = (fh: FileHandle, path: string): FileHandle => {
    // the handle's own methods, taken before they are replaced below
    const realWrite = fh.write.bind(fh);
    const write = (data: Uint8Array | string): Promise<unknown> => (typeof data === 'string' ? realWrite(data) : realWrite(data));
    const sync = fh.sync.bind(fh);
    const datasync = fh.datasync.bind(fh);
    Object.assign(fh, {
      write: (data: Uint8Array | string) => timed('write', path, undefined, () => write(data)),
      sync: () =>
        timed('sync', path, undefined, async () => {
          await hook('sync', path);
          await sync();
        }),
      datasync: () =>
        timed('datasync', path, undefined, async () => {
          await hook('datasync', path);
          await datasync();
        }),
    });
    return fh;
  };
  const fs: StoreFs = {
    open: async (path, flags) => wrap(await NODE_FS.open(path, flags), path),
    rename: (from, to) => timed('rename', from, to, () => NODE_FS.rename(from, to)),
    link: (existing, name) => timed('link', existing, name, () => NODE_FS.link(existing, name)),
    unlink: (path) => NODE_FS.unlink(path),
    openDir: async (path) => {
      const dir = await NODE_FS.openDir(path);
      return {
        sync: () =>
          timed('sync', path, undefined, async () => {
            await hook('sync', path);
            await dir.sync();
          }),
        close: () => dir.close(),
      };
    },
  };
  return {
    fs,
    events,
    note: (op, path, to) => log(op, 'end', path, to, calls++),
    until: (condition) => (condition(events) ? Promise.resolve() : new Promise<void>((met) => watchers.push({ condition, met }))),
  };
}
