// The file raw store's commit alone (no SMTP, no Redis): `sessions` writers each write a 10 KB
// blob and commit it, back to back, for a while; commits per second, commit time, and the
// fsyncs the disk saw. Variants: group commit off (fsync the file, fsync the directory, each
// commit), on (fdatasync the file, the directory's fsync shared), and on with fsync instead of
// fdatasync for the file (what the shared directory fsync saves by itself), and off with the
// directory opened and closed around each of its fsyncs (how every commit did it before the store
// kept one descriptor per directory). The variants take turns round after round, so that a loaded
// machine weighs on each alike. CPU per commit is this process's (all threads: the thread pool's
// file system calls included).
// `npx tsx bench/raw-store-commit.ts [--rounds 3] [--duration-ms 2000] [--dir /path/on/the/disk]`
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type DirectoryHandle, NODE_FS, type StoreFs } from '../src/raw-store/durability.js';
import { fileRawStore } from '../src/raw-store/file-store.js';
import { median, quantile } from './stats.js';

const VARIANTS = ['off', 'off, directory reopened', 'on', 'on, file fsync'] as const;
type Variant = (typeof VARIANTS)[number];
const SESSIONS = [1, 8, 32] as const;
const BODY = Buffer.alloc(10 * 1024, 'x');
const GROUP = { maxWaitMs: 2, max: 32 };

interface Cell {
  readonly variant: Variant;
  readonly sessions: number;
  readonly perSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly syncsPerCommit: number;
  readonly cpuMsPerCommit: number;
}

/**
 * node:fs, counting syncs; `fileFsync`: a file's fdatasync is a full fsync; `reopenDirectory`: a
 * directory's every fsync opens and closes its own descriptor.
 */
function countingFs(fileFsync: boolean, reopenDirectory: boolean): { fs: StoreFs; syncs: () => number } {
  let syncs = 0;
  const syncDirectory = async (path: string, kept: DirectoryHandle): Promise<void> => {
    syncs += 1;
    if (!reopenDirectory) return kept.sync();
    const own = await NODE_FS.openDir(path);
    try {
      await own.sync();
    } finally {
      await own.close();
    }
  };
  return {
    syncs: () => syncs,
    fs: {
      ...NODE_FS,
      async openDir(path) {
        const kept = await NODE_FS.openDir(path);
        return { sync: () => syncDirectory(path, kept), close: () => kept.close() };
      },
      async open(path, flags) {
        const fh = await NODE_FS.open(path, flags);
        const sync = fh.sync.bind(fh);
        const datasync = fh.datasync.bind(fh);
        Object.assign(fh, {
          sync: () => {
            syncs += 1;
            return sync();
          },
          datasync: () => {
            syncs += 1;
            return fileFsync ? sync() : datasync();
          },
        });
        return fh;
      },
    },
  };
}

async function cell(variant: Variant, sessions: number, durationMs: number, base: string): Promise<Cell> {
  const dir = mkdtempSync(join(base, 'letter-intake-commit-bench-'));
  const counting = countingFs(variant === 'on, file fsync', variant === 'off, directory reopened');
  const grouped = variant === 'on' || variant === 'on, file fsync';
  const store = fileRawStore({ dir, timeoutMs: 30_000, fs: counting.fs, ...(grouped ? { groupCommit: GROUP } : {}) });
  const cpu = process.cpuUsage();
  const times: number[] = [];
  const until = performance.now() + durationMs;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        while (performance.now() < until) {
          const write = store.begin();
          await write.write(BODY);
          const t0 = performance.now();
          await write.commit();
          times.push(performance.now() - t0);
        }
      }),
    );
  } finally {
    store.close();
  }
  // measured before the directory is removed: deleting the blobs is not commit work
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  rmSync(dir, { recursive: true, force: true });
  return {
    variant,
    sessions,
    perSec: times.length / elapsed,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    syncsPerCommit: counting.syncs() / Math.max(1, times.length),
    cpuMsPerCommit: (used.user + used.system) / 1000 / Math.max(1, times.length),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      'duration-ms': { type: 'string', default: '2000' },
      dir: { type: 'string', default: tmpdir() },
    },
  });
  const rounds = Number(values.rounds);
  const durationMs = Number(values['duration-ms']);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; directory under ${values.dir}`,
  );
  const cells: Cell[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? VARIANTS : [...VARIANTS].reverse();
    for (const sessions of SESSIONS) {
      for (const variant of order) {
        const c = await cell(variant, sessions, durationMs, values.dir);
        cells.push(c);
        log(
          `round ${round} ${variant} ×${sessions}: ${c.perSec.toFixed(0)}/s, p50 ${c.p50.toFixed(1)} p99 ${c.p99.toFixed(1)} ms, ${c.syncsPerCommit.toFixed(2)} syncs and ${c.cpuMsPerCommit.toFixed(3)} ms CPU per commit`,
        );
      }
    }
  }
  log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const rows = [
    '| group commit | sessions | commits/s (median) | commit p50 ms | commit p99 ms | syncs per commit | CPU ms per commit (median) | rounds: commits/s |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const sessions of SESSIONS) {
    for (const variant of VARIANTS) {
      const mine = cells.filter((c) => c.variant === variant && c.sessions === sessions);
      rows.push(
        `| ${variant} | ${sessions} | ${median(mine.map((c) => c.perSec)).toFixed(0)} | ${median(mine.map((c) => c.p50)).toFixed(1)} | ${median(mine.map((c) => c.p99)).toFixed(1)} | ${median(mine.map((c) => c.syncsPerCommit)).toFixed(2)} | ${median(mine.map((c) => c.cpuMsPerCommit)).toFixed(3)} | ${mine.map((c) => c.perSec.toFixed(0)).join(', ')} |`,
      );
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
