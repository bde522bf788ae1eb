// What sealing (RAW_STORE_KEY) costs a listener per message, alone: 10 MB handed to a raw write
// as 64 KiB chunks (what DATA hands the store), with and without the key, into a sink that
// drops the bytes and into a directory (the file store: batching, fsync, rename). Wall and CPU
// milliseconds per message, best of N, and the peak RSS of a process that runs only that case.
//   npx tsx bench/seal-cost.ts [runs]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileRawStore } from '../src/raw-store/file-store.js';
import type { RawWrite } from '../src/raw-store/raw-store.js';
import { keyringOf } from '../src/raw-store/sealing/keyring.js';
import { sealingWrite } from '../src/raw-store/sealing/seal-stream.js';

const MESSAGE_BYTES = 10 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const RUNS = Number(process.argv[2] ?? 15);
const keyring = keyringOf([randomBytes(32).toString('base64')], 'bench');

/** A write that drops what it gets: the cost of sealing with nothing behind it. */
function sink(): RawWrite {
  return { key: 'sink.eml', buffered: 0, write: () => undefined, commit: () => Promise.resolve(), abort: () => Promise.resolve() };
}

const source = randomBytes(MESSAGE_BYTES);

async function oneMessage(begin: () => RawWrite): Promise<void> {
  const write = begin();
  for (let at = 0; at < MESSAGE_BYTES; at += CHUNK_BYTES) {
    // A fresh chunk each time, as a socket hands them over.
    const wait = write.write(Buffer.from(source.subarray(at, at + CHUNK_BYTES)));
    if (wait !== undefined) await wait;
  }
  await write.commit();
}

interface Cost {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function best(begin: () => RawWrite, after?: (key: string) => Promise<void>): Promise<Cost> {
  let wallMs = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS + 1; i++) {
    let key = '';
    const counted = (): RawWrite => {
      const write = begin();
      key = write.key;
      return write;
    };
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await oneMessage(counted);
    const spent = process.cpuUsage(cpu);
    if (i > 0) {
      // the first run warms up
      wallMs = Math.min(wallMs, performance.now() - wall);
      cpuMs = Math.min(cpuMs, (spent.user + spent.system) / 1000);
    }
    await after?.(key);
  }
  return { wallMs, cpuMs };
}

const dir = mkdtempSync(join(tmpdir(), 'seal-cost-'));
const store = fileRawStore({ dir, timeoutMs: 30_000 });
const CASES: Readonly<Record<string, readonly [() => RawWrite, ((key: string) => Promise<void>)?]>> = {
  'sink, key off': [sink],
  'sink, key on': [() => sealingWrite(sink(), keyring)],
  'file, key off': [() => store.begin(), (key) => store.delete(key)],
  'file, key on': [() => sealingWrite(store.begin(), keyring), (key) => store.delete(key)],
};
const only = process.argv[3];
try {
  if (only === undefined) {
    // Each case in a process of its own, so that its peak RSS is its own.
    process.stdout.write(`10 MB in 64 KiB chunks, best of ${RUNS} (after one warm-up), node ${process.version}\n`);
    for (const label of Object.keys(CASES)) {
      const script = process.argv[1] ?? '';
      process.stdout.write(execFileSync(process.execPath, [...process.execArgv, script, String(RUNS), label], { encoding: 'utf8' }));
    }
  } else {
    const [begin, after] = CASES[only] ?? [];
    if (begin === undefined) throw new Error(`no case ${only}`);
    const cost = await best(begin, after);
    const peak = process.resourceUsage().maxRSS / 1024;
    process.stdout.write(
      `${only.padEnd(14)} wall ${cost.wallMs.toFixed(1).padStart(6)} ms  cpu ${cost.cpuMs.toFixed(1).padStart(6)} ms  peak rss ${peak.toFixed(0)} MB\n`,
    );
  }
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
