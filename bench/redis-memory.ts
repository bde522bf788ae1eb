// `npm run bench:memory [-- --store file --store s3 --count 30]`: Redis `used_memory` growth per
// accepted message, 1 MB and 10 MB PDFs. The gateway runs in production shape (compiled listener
// process, private Redis) with no worker, so every accepted message stays in Redis as it is
// after its 250 (record, job, and the raw message where it lives in Redis). Each store kind
// gets a fresh Redis; s3 runs against s3rver on loopback (a stand-in for a real object store).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startS3Server, TEST_BUCKET } from '../test/helpers/s3-server.js';
import { startGateway } from './gateway.js';
import { BENCH_ENVELOPE, buildBenchMessage, type SizeName } from './messages.js';
import { Sampler } from './proc-stats.js';
import { SmtpClient } from './smtp-client.js';

const SIZES: readonly SizeName[] = ['1MB', '10MB'];
const STORES = ['file', 's3'] as const;
type StoreKind = (typeof STORES)[number];

interface Row {
  readonly store: StoreKind;
  readonly size: SizeName;
  readonly wireBytes: number;
  readonly accepted: number;
  readonly perMessageBytes: number;
}

async function measure(store: StoreKind, count: number, log: (line: string) => void): Promise<Row[]> {
  const temp = mkdtempSync(join(tmpdir(), 'letter-intake-bench-memory-'));
  const logDir = join(temp, 'logs');
  const dataDir = join(temp, 'redis');
  mkdirSync(logDir);
  mkdirSync(dataDir);
  const s3 = store === 's3' ? await startS3Server() : undefined;
  const extraEnv =
    s3 === undefined ? { RAW_STORE_URL: pathToFileURL(join(temp, 'raw')).href } : { RAW_STORE_URL: `s3://${TEST_BUCKET}/bench`, ...s3.env };
  const sampler = new Sampler();
  // One listener process: Redis's memory per intake is the same whatever the listener's shape.
  const gateway = await startGateway({ logDir, dataDir, sampler, workerConcurrency: 1, smtpProcesses: 1, extraEnv });
  const rows: Row[] = [];
  try {
    const runId = Date.now().toString(36);
    for (const size of SIZES) {
      const message = await buildBenchMessage(size, runId);
      const client = await SmtpClient.open(gateway.smtpPort, BENCH_ENVELOPE.helo);
      await client.send(BENCH_ENVELOPE.mailFrom, BENCH_ENVELOPE.rcptTo, message.head(0), message.tail); // warms Redis's scripts and structures
      const before = await usedMemory(gateway.redis.client);
      let accepted = 0;
      for (let seq = 1; seq <= count; seq += 1) {
        const reply = await client.send(BENCH_ENVELOPE.mailFrom, BENCH_ENVELOPE.rcptTo, message.head(seq), message.tail);
        if (reply.code === 250) accepted += 1;
        else log(`${store} ${size}: ${reply.code} ${reply.text}`);
      }
      await client.quit();
      const after = await usedMemory(gateway.redis.client);
      const perMessageBytes = accepted === 0 ? 0 : Math.round((after - before) / accepted);
      rows.push({ store, size, wireBytes: message.wireBytes, accepted, perMessageBytes });
      log(`${store} ${size}: ${accepted}/${count} accepted, Redis used_memory +${kib(perMessageBytes)} per message`);
    }
  } finally {
    await gateway.stop();
    await s3?.stop();
    rmSync(temp, { recursive: true, force: true });
  }
  return rows;
}

/** used_memory, settled: Redis frees some memory lazily, so read it until two reads agree. */
async function usedMemory(redis: { info(section: string): Promise<string> }): Promise<number> {
  const read = async (): Promise<number> => {
    const match = /^used_memory:(\d+)/m.exec(await redis.info('memory'));
    if (match?.[1] === undefined) throw new Error('INFO memory has no used_memory');
    return Number(match[1]);
  };
  let last = await read();
  for (let i = 0; i < 20; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { store: { type: 'string', multiple: true }, count: { type: 'string', default: '30' } } });
  const stores = (values.store ?? [...STORES]).filter((s): s is StoreKind => (STORES as readonly string[]).includes(s));
  const count = Number(values.count);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const rows: Row[] = [];
  for (const store of stores) rows.push(...(await measure(store, count, log)));
  const lines = [
    '| store | message | on the wire | accepted | Redis used_memory per message |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.store} | ${r.size} PDF | ${(r.wireBytes / 1024 / 1024).toFixed(1)} MiB | ${r.accepted} | ${kib(r.perMessageBytes)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:memory failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
