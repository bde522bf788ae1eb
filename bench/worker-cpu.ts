// The worker's CPU per letter, in this process, without the queue: the bench's messages (10 KB,
// 1 MB, 10 MB) go through what the processor does with a loaded raw message (parse, decide, the
// PDF checks in their threads, draft → submit over HTTP) against the sandbox Sender API in its
// own process, one letter at a time. CPU is this process's (checker threads included), read with
// process.cpuUsage() around each letter; per size the mean (what a drain pays: garbage collections
// included), the median and p90 are reported, and the mean per phase (parse, decide, the PDF
// checks, the API calls; they add up to the mean). The drain table of
// `npm run bench` measures the whole worker process (Redis and BullMQ included) instead.
//
//   npm run build && tsx bench/worker-cpu.ts [--pdf-checks off] [--letters N] [--sizes 10KB,1MB]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { growHeapsAsAServer } from '../src/fast-paths/heap-growth.js';
import { checkPdfs } from '../src/pdf/check-pdfs.js';
import { createPdfChecker } from '../src/pdf/checker-pool.js';
import { freePort } from '../src/runtime/redis.js';
import { createSenderApiClient } from '../src/sender-api/index.js';
import { loadSenderDirectory } from '../src/senders/directory.js';
import { decide } from '../src/worker/decide.js';
import { letterApiFor } from '../src/worker/letter-api.js';
import { memoryLetterStatuses } from '../src/worker/letter-statuses.js';
import { parseMessage } from '../src/worker/parse-message.js';
import { type Checkpoint, submitExactlyOnce } from '../src/worker/submit-letter.js';
import { buildBenchMessage, isSizeName, SIZE_NAMES, type SizeName, storedBody } from './messages.js';
import { REPO, startRole } from './processes.js';
import { mean, quantile } from './stats.js';

const LETTERS: Record<SizeName, number> = { '10KB': 300, '1MB': 40, '10MB': 12 };
const WARM_UP = 3;

const { values } = parseArgs({
  options: {
    'pdf-checks': { type: 'string', default: 'strict' },
    letters: { type: 'string' },
    sizes: { type: 'string', default: SIZE_NAMES.join(',') },
  },
});
const strict = values['pdf-checks'] !== 'off';
const sizes = (values.sizes ?? '').split(',').filter(isSizeName);

const sendersFile = resolve(REPO, 'fixtures', 'senders.json');
const sandboxPort = await freePort();
const sandbox = await startRole(
  'sandbox',
  'sandbox-api',
  {
    SENDERS_FILE: sendersFile,
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_PORT: String(sandboxPort),
    OPS_HTTP_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  },
  mkdtempSync(join(tmpdir(), 'worker-cpu-')),
);

const logger = pino({ level: 'warn' });
const directory = loadSenderDirectory(sendersFile, process.env);
const client = createSenderApiClient({ baseUrl: `http://127.0.0.1:${sandboxPort}`, clock: Date.now, timeoutMs: 30_000, logger });
growHeapsAsAServer(); // as the worker process does
const checker = strict ? createPdfChecker({ threads: 1, timeoutMs: 10_000, memoryMb: 256 }) : undefined;

try {
  console.log(`worker CPU per letter, PDF checks ${strict ? 'strict' : 'off'} (per-letter process.cpuUsage)`);
  console.log('| size | letters | CPU ms/letter (mean) | median | p90 | parse | decide | PDF checks | API calls |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const size of sizes) {
    const message = await buildBenchMessage(size, 'cpu');
    const count = values.letters === undefined ? LETTERS[size] : Number(values.letters);
    const stored = storedBody(message);
    const perLetter: number[] = [];
    const phases = { parse: [] as number[], decide: [] as number[], checks: [] as number[], api: [] as number[] };
    for (let seq = 0; seq < count + WARM_UP; seq += 1) {
      // a fresh copy per letter, as loading it from the raw store makes
      const raw = Buffer.concat([message.head(seq), stored]);
      const before = process.cpuUsage();
      const parsed = await parseMessage(raw);
      const parsedAt = process.cpuUsage(before);
      const decision = decide(parsed, { directory, maxPdfBytes: 10 * 1024 * 1024 });
      if (decision.kind !== 'letter') throw new Error(`${size}: ${decision.reason}`);
      const decidedAt = process.cpuUsage(before);
      const pdfCheck = await checkPdfs(decision.pdfs, decision.sender, checker);
      if (!pdfCheck.ok) throw new Error(`${size}: ${pdfCheck.reason}`);
      const checkedAt = process.cpuUsage(before);
      await submitExactlyOnce(
        letterApiFor(client.as(decision.sender)),
        memoryCheckpoint(),
        { letter: decision.letter, pdfSha256s: decision.pdfs.map((p) => p.sha256) },
        { clock: Date.now, signal: new AbortController().signal, isInvalidData: () => false, statuses: memoryLetterStatuses() },
      );
      const used = process.cpuUsage(before);
      if (seq < WARM_UP) continue;
      perLetter.push(ms(used));
      phases.parse.push(ms(parsedAt));
      phases.decide.push(ms(decidedAt) - ms(parsedAt));
      phases.checks.push(ms(checkedAt) - ms(decidedAt));
      phases.api.push(ms(used) - ms(checkedAt));
    }
    const means = [phases.parse, phases.decide, phases.checks, phases.api].map((xs) => mean(xs).toFixed(2));
    const total = [mean(perLetter), quantile(perLetter, 0.5), quantile(perLetter, 0.9)].map((x) => x.toFixed(2));
    console.log(`| ${size} | ${count} | ${total.join(' | ')} | ${means.join(' | ')} |`);
  }
} finally {
  await checker?.close();
  await sandbox.stop();
}

function memoryCheckpoint(): Checkpoint {
  let letterId: string | undefined;
  let draftRequestedAt: number | undefined;
  return {
    get letterId() {
      return letterId;
    },
    get draftRequestedAt() {
      return draftRequestedAt;
    },
    markDraftRequested: async (at) => {
      draftRequestedAt = at;
    },
    draftStatus: undefined,
    recordLetterId: async (id) => {
      letterId = id;
      return 'ok';
    },
    recordStrayDraft: async () => {},
  };
}

function ms(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}
