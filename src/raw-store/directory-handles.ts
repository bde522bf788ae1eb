// Each directory's descriptor opened once and kept for its fsyncs: opening and closing it around
// every fsync were two of a commit's eight file system calls (each a trip to the thread pool).
// A descriptor is closed exactly once, and only when no fsync runs on it: one whose fsync failed
// is retired at once (the next fsync of that directory opens a fresh one) and closed when its
// last fsync has ended; the fsyncs still in flight on it when the failure is seen fail too (as
// seen from Node: one whose success arrived just before is not recalled); close() retires them
// all, and an fsync asked after close() opens and closes its own.
// The directories are the store's own, made at its start; one removed and made again under a
// running process would keep the old one's descriptor (docs/design.md §6).
import type { DirectoryHandle, StoreFs } from './durability.js';

export interface DirectorySyncs {
  /** fsync of the directory: every rename into it finished before this call is on disk. */
  sync(path: string): Promise<void>;
  /** Retires every kept descriptor; each closes once its fsyncs in flight have ended. */
  close(): void;
}

/** An fsync in flight; `failed` once another fsync on the same descriptor failed meanwhile. */
interface InFlight {
  failed?: unknown;
}

class KeptDirectory {
  readonly #inFlight = new Set<InFlight>();
  #retired = false;
  #closed = false;

  constructor(private readonly handle: Promise<DirectoryHandle>) {}

  async sync(): Promise<void> {
    const mine: InFlight = {};
    this.#inFlight.add(mine);
    try {
      try {
        await (await this.handle).sync();
      } catch (err) {
        // Linux reports a writeback error once per open file: an fsync sharing the descriptor
        // may return 0 because this one took the error. Those still in flight fail with it.
        for (const other of this.#inFlight) other.failed ??= err;
        this.#retired = true; // no later fsync takes this descriptor
        throw err;
      }
      if (mine.failed !== undefined) throw mine.failed;
    } finally {
      this.#inFlight.delete(mine);
      this.#closeWhenIdle();
    }
  }

  get retired(): boolean {
    return this.#retired;
  }

  retire(): void {
    this.#retired = true;
    this.#closeWhenIdle();
  }

  #closeWhenIdle(): void {
    if (!this.#retired || this.#inFlight.size > 0 || this.#closed) return;
    this.#closed = true;
    this.handle.then((dir) => dir.close()).catch(() => undefined);
  }
}

export function directorySyncs(fs: StoreFs): DirectorySyncs {
  const kept = new Map<string, KeptDirectory>();
  let closed = false;
  return {
    async sync(path) {
      if (closed) {
        const once = new KeptDirectory(fs.openDir(path));
        try {
          return await once.sync();
        } finally {
          once.retire();
        }
      }
      let dir = kept.get(path);
      if (dir === undefined || dir.retired) {
        dir = new KeptDirectory(fs.openDir(path));
        kept.set(path, dir);
      }
      try {
        await dir.sync();
      } catch (err) {
        if (kept.get(path) === dir) kept.delete(path);
        dir.retire();
        throw err;
      }
    },
    close() {
      closed = true;
      for (const dir of kept.values()) dir.retire();
      kept.clear();
    },
  };
}
