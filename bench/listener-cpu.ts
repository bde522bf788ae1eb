// The listener's work per message after smtp-server has parsed DATA, in this process, without
// sockets or Redis: the bench's messages (10 KB, 1 MB, 10 MB) go through receiveMessage() in
// 64 KiB chunks, as a client's writes arrive: the collector's checks, the raw file store
// (committed, fsynced), DKIM and SPF (from fixtures/zone.json), the MIME walk and the content
// digest, the message rules. Acceptance stops at the raw store's commit (no record, no job).
// Reported per size: the median main-thread time per message (event loop utilization, what
// bounds the accept rate of one listener) and the process CPU (all threads: file writes, GC).
// With RAW_STORE_KEY set, the store seals what it is given, as the listener's does.
//
//   npm run build && [RAW_STORE_KEY=…] tsx bench/listener-cpu.ts [--messages N] [--sizes 10KB,1MB]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadZoneResolver } from '../src/auth/zone-resolver.js';
import { rawStoreSpool } from '../src/intake/raw-spool.js';
import { startMimeWalk } from '../src/mime/mime-walk.js';
import { fileRawStore } from '../src/raw-store/file-store.js';
import { keyringOf } from '../src/raw-store/sealing/keyring.js';
import { sealedRawStore } from '../src/raw-store/sealing/sealed-store.js';
import { createAuthenticator } from '../src/smtp/authenticator.js';
import { MemoryBudget } from '../src/smtp/memory-budget.js';
import { receiveMessage } from '../src/smtp/receive-message.js';
import { BENCH_ENVELOPE, buildBenchMessage, isSizeName, SIZE_NAMES, type SizeName, storedBody } from './messages.js';
import { REPO } from './processes.js';
import { median, quantile } from './stats.js';

const MESSAGES: Record<SizeName, number> = { '10KB': 2000, '1MB': 100, '10MB': 20 };
const WARM_UP: Record<SizeName, number> = { '10KB': 300, '1MB': 20, '10MB': 4 };
const CHUNK = 64 * 1024;
const MiB = 1024 * 1024;

const { values } = parseArgs({ options: { messages: { type: 'string' }, sizes: { type: 'string', default: SIZE_NAMES.join(',') } } });
const sizes = (values.sizes ?? '').split(',').filter(isSizeName);

const dir = mkdtempSync(join(tmpdir(), 'listener-cpu-'));
const key = process.env.RAW_STORE_KEY;
const files = fileRawStore({ dir, timeoutMs: 30_000 });
const store = key === undefined ? files : sealedRawStore(files, keyringOf([key], 'RAW_STORE_KEY'));
const deps = {
  authenticate: createAuthenticator(loadZoneResolver(resolve(REPO, 'fixtures', 'zone.json'))),
  accept: async (_intake: unknown, message: { body: () => Promise<{ blobKey: string }> }) => {
    await message.body();
    return { intakeId: 'bench', duplicate: false };
  },
  spool: rawStoreSpool(store),
  clock: Date.now,
  hostname: 'mx.intake.example',
  maxMessageBytes: 20 * MiB,
  memory: new MemoryBudget(128 * MiB, 512 * 1024),
  authTimeoutMs: 10_000,
  startWalk: startMimeWalk,
  rules: { isRegistered: () => true, maxPdfBytes: 10 * MiB },
  refused: async () => {},
};
const envelope = { mailFrom: BENCH_ENVELOPE.mailFrom, rcptTo: [BENCH_ENVELOPE.rcptTo], clientIp: '127.0.0.1', helo: BENCH_ENVELOPE.helo };

try {
  console.log(
    `listener work per message after the DATA parser (median; main thread = event loop busy time), raw store ${key === undefined ? 'as sent' : 'sealed'}`,
  );
  console.log('| size | messages | main thread ms/msg | p90 | process CPU ms/msg |');
  console.log('|---|---:|---:|---:|---:|');
  for (const size of sizes) {
    const message = await buildBenchMessage(size, 'listener-cpu');
    const body = storedBody(message);
    const count = values.messages === undefined ? MESSAGES[size] : Number(values.messages);
    const main: number[] = [];
    const cpu: number[] = [];
    for (let seq = 0; seq < count + WARM_UP[size]; seq += 1) {
      const raw = Buffer.concat([message.head(seq), body]);
      // fresh chunks, as socket reads give them
      const chunks = Array.from({ length: Math.ceil(raw.length / CHUNK) }, (_, i) => Buffer.from(raw.subarray(i * CHUNK, (i + 1) * CHUNK)));
      const elu = performance.eventLoopUtilization();
      const before = process.cpuUsage();
      const accepted = await receiveMessage(deps, Readable.from(chunks, { objectMode: false }), envelope);
      const used = process.cpuUsage(before);
      const busy = performance.eventLoopUtilization(elu);
      if (accepted.intakeId !== 'bench') throw new Error('not accepted');
      if (seq < WARM_UP[size]) continue;
      main.push(busy.active);
      cpu.push((used.user + used.system) / 1000);
    }
    console.log(`| ${size} | ${count} | ${median(main).toFixed(2)} | ${quantile(main, 0.9).toFixed(2)} | ${median(cpu).toFixed(2)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
