// Redis lost, mail kept: 200 letters accepted while a worker runs, Redis emptied when about half
// have ended (FLUSHALL with the file store, a fresh empty server with the S3 store), then
// `letter-intake recover`. Every message answered 250 must end as exactly one PendingApproval
// letter, no intake that had failed comes back to life, and a message answered only 451 never
// becomes a letter. And a worker killed between its submit and its `ended/` marker, Redis then
// flushed and recovered: one letter. Real processes (listener, worker, the recover command), a
// private redis-server, the sandbox Sender API over HTTP.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { RAW_STORE_KINDS, type RawStoreKind } from '../helpers/raw-stores.js';
import { randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const LETTERS = 200;
/** The first draft calls the sandbox refuses with 404: those intakes end failed before Redis is lost. */
const FAILING_DRAFTS = 5;
const SENDING_IN_PARALLEL = 8;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sandbox: RunningSandbox;
const processes: RoleProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({
    directory: loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {}),
    clock: Date.now,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    contractMode: 'ours',
  });
});

afterAll(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop('SIGKILL')));
  await sandbox.close();
});

/** Every letter (not a draft left unsubmitted) the sandbox holds under a title. */
const lettersTitled = (title: string) => sandbox.store.allLetters().filter((l) => l.title === title && l.status !== 'Draft');

interface Gateway {
  readonly env: Record<string, string>;
  readonly redis: Redis;
  readonly server: RedisServer;
  readonly store: IntakeStore;
  readonly smtpPort: number;
  startWorker(): Promise<RoleProcess>;
  deliver(title: string): Promise<{ code: number; intakeId: string | undefined }>;
  close(): Promise<void>;
}

async function startGateway(kind: RawStoreKind): Promise<Gateway> {
  const server = await startRedisServer();
  const place = kind.fresh();
  const prefix = randomPrefix();
  const smtpPort = await freePort();
  const env = testEnv(prefix, {
    REDIS_URL: server.url,
    SENDER_API_URL: sandbox.url,
    SMTP_PORT: String(smtpPort),
    OPS_HTTP_PORT: '0',
    ENQUEUE_TIMEOUT_MS: '1000',
    WORKER_CONCURRENCY: '4',
    ...place.env,
  });
  const redis = new Redis(server.url, { maxRetriesPerRequest: 3 });
  const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  processes.push(await startRole('smtp', env));
  return {
    env,
    redis,
    server,
    store,
    smtpPort,
    async startWorker() {
      const worker = await startRole('worker', env);
      processes.push(worker);
      return worker;
    },
    async deliver(title) {
      const raw = await signedLetter({ title });
      const replies = await sendOnce(smtpPort, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
      const data = replies.data;
      return { code: data?.code ?? 0, intakeId: data?.code === 250 ? intakeIdOf(data.text) : undefined };
    },
    async close() {
      redis.disconnect();
      await server.destroy();
      place.cleanup();
    },
  };
}

async function countEnded(gateway: Gateway): Promise<number> {
  const counts = await Promise.all(
    ['submitted', 'rejected', 'failed'].map((s) => gateway.redis.zcard(`${gateway.env.REDIS_PREFIX}:state:${s}`)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function settleAll(gateway: Gateway, ids: readonly string[], timeoutMs: number): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = new Map<string, string>();
    for (const id of ids) states.set(id, (await gateway.store.get(id))?.state ?? 'missing');
    const open = [...states.values()].filter((s) => !['submitted', 'rejected', 'failed'].includes(s));
    if (open.length === 0 || Date.now() > deadline) return states;
    await delay(250);
  }
}

/** Empties Redis as a disaster would: FLUSHALL, or a new server with no data on the same port. */
async function loseRedis(gateway: Gateway, how: 'flushall' | 'fresh server'): Promise<void> {
  if (how === 'flushall') {
    await gateway.redis.flushall();
    return;
  }
  await gateway.server.kill();
  for (const name of readdirSync(gateway.server.dir)) rmSync(join(gateway.server.dir, name), { recursive: true, force: true });
  await gateway.server.restart();
}

const CASES = RAW_STORE_KINDS.map((kind) => [kind.name, kind, kind.name === 'file' ? 'flushall' : 'fresh server'] as const);

describe.each(CASES)('recover with the %s raw store after Redis is lost', (storeName, kind, how) => {
  let gateway: Gateway;
  beforeAll(async () => {
    await kind.setup();
    gateway = await startGateway(kind);
  });
  afterAll(async () => {
    await gateway.close();
    await kind.teardown();
  });

  it(`turns every message answered 250 into exactly one letter (${how}), reopens no failed intake and makes none from a 451`, async () => {
    // Accepted while no worker runs, so that the worker's progress decides what is lost.
    const run = `${storeName}-${Date.now()}`;
    const titles = Array.from({ length: LETTERS }, (_, i) => `Recover ${run} #${i}`);
    const accepted = new Map<string, string>(); // intake id → title
    for (let i = 0; i < titles.length; i += SENDING_IN_PARALLEL) {
      const batch = titles.slice(i, i + SENDING_IN_PARALLEL);
      const replies = await Promise.all(batch.map(async (title) => ({ title, ...(await gateway.deliver(title)) })));
      for (const r of replies) if (r.intakeId !== undefined) accepted.set(r.intakeId, r.title);
    }
    expect(accepted.size).toBe(LETTERS);

    // A message answered only 451: Redis stalls past ENQUEUE_TIMEOUT_MS after the blob is committed.
    const only451 = `Recover ${run} answered 451`;
    gateway.server.pause();
    const refused = await gateway.deliver(only451).finally(() => gateway.server.resume());
    expect(refused.code).toBe(451);

    sandbox.store.injectFault({ status: 404, paths: '/api/v1/letters/draft', count: FAILING_DRAFTS });
    const worker = await gateway.startWorker();
    while ((await countEnded(gateway)) < LETTERS / 2) await delay(20);
    const failedBefore: string[] = [];
    for (const id of accepted.keys()) if ((await gateway.store.get(id))?.state === 'failed') failedBefore.push(id);
    const endedBefore = await countEnded(gateway);
    await loseRedis(gateway, how);
    expect(await gateway.store.get([...accepted.keys()][0] ?? '')).toBeUndefined();

    const recovered = await runCommand(['recover'], gateway.env);
    expect(recovered.code, recovered.text).toBe(0);
    const states = await settleAll(gateway, [...accepted.keys()], 120_000);

    const letters = [...accepted.entries()].map(([id, title]) => ({ id, count: lettersTitled(title).length }));
    const ledger = {
      store: storeName,
      lost: how,
      accepted: accepted.size,
      endedBeforeLoss: endedBefore,
      failedBeforeLoss: failedBefore.length,
      letters: letters.reduce((n, l) => n + l.count, 0),
      duplicates: letters.filter((l) => l.count > 1).length,
      missed: letters.filter((l) => l.count === 0 && !failedBefore.includes(l.id)).length,
      lettersFor451: lettersTitled(only451).length,
    };
    process.stdout.write(`recover ledger: ${JSON.stringify(ledger)}\n`);
    expect(worker.child.exitCode).toBeNull();
    expect(failedBefore.length).toBeGreaterThan(0);
    expect(endedBefore).toBeLessThan(LETTERS); // Redis was lost with intakes still to run
    expect({ duplicates: ledger.duplicates, missed: ledger.missed, lettersFor451: ledger.lettersFor451 }).toEqual({
      duplicates: 0,
      missed: 0,
      lettersFor451: 0,
    });
    for (const id of failedBefore) {
      expect({ id, state: states.get(id), letters: lettersTitled(accepted.get(id) ?? '').length }).toEqual({
        id,
        state: 'failed',
        letters: 0,
      });
    }
    for (const [id, title] of accepted) {
      if (failedBefore.includes(id)) continue;
      expect({ id, state: states.get(id), letters: lettersTitled(title).map((l) => l.status) }).toEqual({
        id,
        state: 'submitted',
        letters: ['PendingApproval'],
      });
    }

    // Idempotent: a second run finds every intake in Redis.
    const again = await runCommand(['recover'], gateway.env);
    expect(again.text).toContain(`${LETTERS} in Redis already, 0 queued`);
  });
});

describe('a worker killed between its submit and its ended marker, then Redis flushed', () => {
  const kind = RAW_STORE_KINDS[0];
  let gateway: Gateway;
  beforeAll(async () => {
    if (kind === undefined) throw new Error('no raw store kinds');
    await kind.setup();
    gateway = await startGateway(kind);
  });
  afterAll(async () => {
    sandbox.store.holds.release();
    await gateway.close();
    await kind?.teardown();
  });

  it('ends with one letter after recover', async () => {
    const title = `Killed after submit, then Redis flushed ${Date.now()}`;
    sandbox.store.holds.add({ method: 'POST', path: '/api/v1/letters/submit', phase: 'after', count: 1 });
    const first = await gateway.startWorker();
    const { intakeId } = await gateway.deliver(title);
    await sandbox.store.holds.waitForHeld();
    await first.stop('SIGKILL');
    sandbox.store.holds.release();
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']); // the API did the submit

    await gateway.redis.flushall();
    const recovered = await runCommand(['recover'], gateway.env);
    expect(recovered.text).toContain('1 queued');
    await gateway.startWorker();
    const states = await settleAll(gateway, [intakeId ?? ''], 30_000);
    expect(states.get(intakeId ?? '')).toBe('submitted');
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);
    const record = await gateway.store.get(intakeId ?? '');
    expect(record?.letterId).toBe(lettersTitled(title)[0]?.id);
  });
});
