// Crashes and restarts over real processes and a real, durable Redis (appendonly yes,
// appendfsync always) that the test owns: the listener SIGKILLed in the middle of DATA and with
// many clients in flight, the worker SIGKILLed at random moments, Redis SIGKILLed and restarted
// on its append-only file, the Sender API down, then throttling, then failing. The test is the
// sending MTA: it re-sends whatever was not answered 250. Every message ends as exactly one letter.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { buildPdf } from '../../fixtures/pdf.js';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { freePort } from '../../src/runtime/redis.js';
import { createSandboxServer, SandboxStore } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv, testRawDir } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { blobsIn, storedMessage } from '../helpers/raw-stores.js';
import { randomPrefix } from '../helpers/redis.js';
import { bytesWaitingAt, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { deliverUntilFinal, offer } from '../helpers/retrying-mta.js';
import { FAULT_SEED, mulberry32 } from '../helpers/seeded-random.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, SmtpClient } from '../helpers/smtp-client.js';

const random = mulberry32(FAULT_SEED);
const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sandbox Sender API that can go away (connection refused) and come back on its port, state kept. */
class SenderApi {
  readonly store = new SandboxStore(directory, Date.now);
  served = 0;
  private app: FastifyInstance | undefined;
  private readonly servedWaiters: { at: number; done: () => void }[] = [];
  private constructor(readonly port: number) {}

  static async start(): Promise<SenderApi> {
    const api = new SenderApi(await freePort());
    await api.up();
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    if (this.app !== undefined) return;
    const app = createSandboxServer({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), store: this.store });
    app.addHook('onResponse', async () => {
      this.served += 1;
      for (const w of this.servedWaiters.filter((x) => this.served >= x.at)) {
        this.servedWaiters.splice(this.servedWaiters.indexOf(w), 1);
        w.done();
      }
    });
    await app.listen({ host: '127.0.0.1', port: this.port });
    this.app = app;
  }

  async down(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }

  /** Resolves once the API has answered `count` more requests. */
  answered(count: number): Promise<void> {
    return new Promise((done) => this.servedWaiters.push({ at: this.served + count, done }));
  }

  lettersTitled(title: string) {
    return this.store.allLetters().filter((l) => l.title === title);
  }
}

let redis: RedisServer;
let reader: Redis;
let api: SenderApi;
const roles: RoleProcess[] = [];

beforeAll(async () => {
  process.stdout.write(`crash-and-restart: FAULT_SEED=${FAULT_SEED}\n`);
  redis = await startRedisServer();
  reader = new Redis(redis.url, { maxRetriesPerRequest: null }); // waits out a Redis restart
  reader.on('error', () => {}); // refused while Redis is down; it reconnects by itself
  api = await SenderApi.start();
});

afterEach(async () => {
  await Promise.all(roles.splice(0).map((r) => r.stop('SIGKILL')));
  api.store.clearFaults();
  await api.up();
  if (!redis.running) await redis.restart();
});

afterAll(async () => {
  reader.disconnect();
  await api.down();
  await redis.destroy();
});

interface Gateway {
  readonly env: Record<string, string>;
  readonly port: number;
  readonly store: IntakeStore;
  readonly rawStore: RawStore;
  readonly queue: Queue;
  start(role: 'smtp' | 'worker'): Promise<RoleProcess>;
}

async function gateway(extra: Record<string, string> = {}): Promise<Gateway> {
  const prefix = randomPrefix();
  const port = await freePort();
  const env = testEnv(prefix, {
    REDIS_URL: redis.url,
    SMTP_PORT: String(port),
    SENDER_API_URL: api.url,
    OPS_HTTP_PORT: '0',
    SMTP_MAX_CLIENTS_PER_IP: '100',
    WORKER_LOCK_MS: '2000',
    WORKER_BACKOFF_BASE_MS: '100',
    WORKER_BACKOFF_CAP_MS: '1000',
    WORKER_ATTEMPTS: '30',
    ...extra,
  });
  const queue = new Queue(INTAKE_QUEUE, { connection: reader, prefix });
  // The directory the role processes write messages to (testEnv's RAW_STORE_URL).
  const rawStore = fileRawStore({ dir: testRawDir(prefix), timeoutMs: 5000 });
  return {
    env,
    port,
    queue,
    rawStore,
    store: new IntakeStore(reader, prefix, { rawMs: 3_600_000, recordMs: 3_600_000 }),
    async start(role) {
      const proc = await startRole(role, env);
      roles.push(proc);
      return proc;
    },
  };
}

interface Delivery {
  readonly intakeId: string;
  /** Replies before the 250: 4xx, or 0 for a refused or dropped connection. */
  readonly refusals: readonly number[];
}

/** The sending MTA until 250; a 5xx is an error here (every message of these tests is good). */
async function deliver(port: number, raw: Buffer, boundMs = 120_000): Promise<Delivery> {
  const { final, retried } = await deliverUntilFinal(port, raw, boundMs);
  if (final.code !== 250) throw new Error(`refused for good: ${final.text}`);
  return { intakeId: intakeIdOf(final.text), refusals: retried };
}

/** Delivers every message, `parallel` at a time; `onAccepted` hears each 250 as it comes. */
async function deliverAll(
  port: number,
  raws: readonly Buffer[],
  parallel: number,
  onAccepted: (d: Delivery) => void = () => {},
): Promise<Delivery[]> {
  const out: Delivery[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < raws.length; i = next++) {
      const raw = raws[i];
      if (raw === undefined) continue;
      const delivery = await deliver(port, raw);
      out[i] = delivery;
      onAccepted(delivery);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return out;
}

/** Waits until every intake reached a final state; returns the records in the same order. */
async function settled(store: IntakeStore, ids: readonly string[], boundMs = 90_000): Promise<IntakeRecord[]> {
  const deadline = Date.now() + boundMs;
  const done = new Map<string, IntakeRecord>();
  for (;;) {
    for (const id of ids.filter((i) => !done.has(i))) {
      const record = await store.get(id);
      if (record !== undefined && ['submitted', 'rejected', 'failed'].includes(record.state)) done.set(id, record);
    }
    if (done.size === new Set(ids).size) return ids.map((id) => done.get(id)).filter((r) => r !== undefined);
    if (Date.now() > deadline) {
      const open = await Promise.all(
        ids.filter((i) => !done.has(i)).map(async (i) => `${i}: ${(await store.get(i))?.state ?? 'no record'}`),
      );
      throw new Error(`${open.length} intakes did not settle within ${boundMs} ms:\n${open.slice(0, 10).join('\n')}`);
    }
    await delay(100);
  }
}

/** For each title: the letters the API holds, as [id, status], next to the record's letter id. */
function lettersPerTitle(titles: readonly string[], records: readonly IntakeRecord[]) {
  return titles.map((title, i) => ({
    title,
    letters: api.lettersTitled(title).map((l) => [l.id, l.status]),
    expected: [[records[i]?.letterId, 'PendingApproval']],
  }));
}

/** Every title has exactly one letter, PendingApproval, the one its record names (no stray draft either). */
function expectOneLetterEach(titles: readonly string[], records: readonly IntakeRecord[]): void {
  expect(records.map((r) => r.state)).toEqual(titles.map(() => 'submitted'));
  // None was reported failed on the way while its job was still being retried (nor in a run a replay ended).
  expect(records.filter((r) => r.timeline.failed !== undefined || r.earlierRuns !== undefined).map((r) => r.intakeId)).toEqual([]);
  const wrong = lettersPerTitle(titles, records).filter((t) => JSON.stringify(t.letters) !== JSON.stringify(t.expected));
  expect(wrong).toEqual([]);
}

/** Distinct signed letters; `paddingBytes` pads each PDF (after %%EOF) to make DATA and hashing take longer. */
async function letters(label: string, count: number, paddingBytes = 0): Promise<{ titles: string[]; raws: Buffer[] }> {
  const titles = Array.from({ length: count }, (_, i) => `${label} ${i + 1} (${FAULT_SEED})`);
  const padding = Buffer.from(`%${'~'.repeat(Math.max(0, paddingBytes - 2))}\n`, 'latin1');
  const pdf = (title: string) => (paddingBytes > 0 ? Buffer.concat([buildPdf(title), padding]) : buildPdf(title));
  return { titles, raws: await Promise.all(titles.map((title) => signedLetter({ title, pdf: pdf(title) }))) };
}

/** A client the listener has told 354: what it sends next is the message. */
async function atData(port: number): Promise<SmtpClient> {
  const { client } = await SmtpClient.open(port);
  await client.command(`EHLO ${FIXTURE_SESSION.helo}`);
  expect((await client.command('MAIL FROM:<bounce@acme.example>')).code).toBe(250);
  expect((await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`)).code).toBe(250);
  expect((await client.command('DATA')).code).toBe(354);
  return client;
}

/** Records under the gateway's prefix and committed blobs in its raw store (as `blob:<key>`), whatever their ids. */
async function storedKeys(gw: Gateway): Promise<string[]> {
  const records = await reader.keys(gw.store.keys.record('*'));
  return [...records, ...(await blobsIn(gw.rawStore)).committed.map((key) => `blob:${key}`)];
}

describe('the listener killed', () => {
  it.each([
    ['a small message', 0],
    ['a message written to the raw store while it arrives (past 256 KiB)', 3_000_000],
  ])('in the middle of DATA of %s: no record, no 250; the re-sent message becomes one letter', async (what, paddingBytes) => {
    const gw = await gateway();
    const listener = await gw.start('smtp');
    const { titles, raws } = await letters(`Listener killed mid-DATA of ${what}`, 1, paddingBytes);
    const [raw] = raws;
    if (raw === undefined) throw new Error('no letter');

    const client = await atData(gw.port);
    const stuffed = dotStuff(raw);
    // Two thirds of the message and no terminating dot: the only reply that can come is the connection closing.
    const reply = client.command(stuffed.subarray(0, Math.floor((stuffed.length * 2) / 3)).toString('latin1'));
    const incomplete = async () => (await blobsIn(gw.rawStore)).incomplete;
    if (paddingBytes > 0) await waitFor(async () => (await incomplete()).length > 0, 20_000); // bytes already in the store
    await listener.stop('SIGKILL');
    expect(await reply).toEqual({ code: 0, text: '(connection closed)' });
    await client.quit();
    expect(await storedKeys(gw)).toEqual([]); // no record, no raw message
    // An incomplete write the dead listener left behind is the raw-store sweep's (RAW_STORE_ORPHAN_AFTER_MS).
    expect((await incomplete()).length).toBe(paddingBytes > 0 ? 1 : 0);

    await gw.start('smtp');
    await gw.start('worker');
    const delivered = await deliver(gw.port, raw);
    expect(delivered.refusals).toEqual([]);
    const rawKey = (await gw.store.get(delivered.intakeId))?.rawKey ?? 'no raw key';
    expect((await storedKeys(gw)).sort()).toEqual([`blob:${rawKey}`, gw.store.keys.record(delivered.intakeId)].sort());
    expectOneLetterEach(titles, await settled(gw.store, [delivered.intakeId]));
  });

  /**
   * Kills the listener after the raw store committed the message and before Redis answered
   * (Redis stalled by SIGSTOP). `recordSent`: the record's script is loaded and the kill waits
   * until Redis holds the listener's EVALSHA in its socket (it runs it once it answers again);
   * otherwise the script is flushed first, so the EVALSHA is refused (NOSCRIPT) and its EVAL
   * fallback is never sent by the dead listener: no record.
   */
  async function killBetweenStoreAndRedis(gw: Gateway, raw: Buffer, recordSent: boolean): Promise<string> {
    const listener = await gw.start('smtp');
    if (recordSent) await reader.script('LOAD', readFileSync(new URL('../../src/intake/scripts/create-6.lua', import.meta.url), 'utf8'));
    else await reader.script('FLUSH');
    const client = await atData(gw.port);
    redis.pause();
    let reply: Promise<{ code: number; text: string }> | undefined;
    try {
      const stuffed = dotStuff(raw).toString('latin1');
      reply = client.command(stuffed.endsWith('\r\n') ? `${stuffed}.` : `${stuffed}\r\n.`); // command() adds the CRLF
      await waitFor(async () => (await blobsIn(gw.rawStore)).committed.length === 1, 10_000);
      // The record's command (an EVALSHA with the record's fields, far over 200 bytes) is in Redis's socket.
      await waitFor(async () => bytesWaitingAt(redis.port) > 200, 10_000);
      await listener.stop('SIGKILL');
    } finally {
      redis.resume();
    }
    expect(await reply).toEqual({ code: 0, text: '(connection closed)' });
    await client.quit();
    const [first] = (await blobsIn(gw.rawStore)).committed;
    if (first === undefined) throw new Error('no committed blob');
    return first;
  }

  it('after the raw store committed the message, before Redis ran its record: no 250, no record, no job; the re-sent message becomes one letter', async () => {
    const gw = await gateway();
    const { titles, raws } = await letters('Listener killed before Redis ran the record', 1);
    const [raw] = raws;
    if (raw === undefined) throw new Error('no letter');
    const first = await killBetweenStoreAndRedis(gw, raw, false);
    // Nothing was promised and nothing recorded; the blob no record points at is the raw-store sweep's.
    expect(await reader.keys(gw.store.keys.record('*'))).toEqual([]);
    expect(await gw.queue.getJobCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 });

    await gw.start('smtp');
    await gw.start('worker');
    const delivery = await deliver(gw.port, raw);
    expect(delivery.refusals).toEqual([]);
    const rawKey = (await gw.store.get(delivery.intakeId))?.rawKey ?? 'no raw key';
    expect((await blobsIn(gw.rawStore)).committed.sort()).toEqual([first, rawKey].sort());
    expect(await reader.keys(gw.store.keys.record('*'))).toEqual([gw.store.keys.record(delivery.intakeId)]);
    expectOneLetterEach(titles, await settled(gw.store, [delivery.intakeId]));
  });

  it('after the raw store committed the message, with its record sent to a stalled Redis: no 250, a received record and no job; the re-sent message is that intake and becomes one letter', async () => {
    const gw = await gateway();
    const { titles, raws } = await letters('Listener killed with the record sent to Redis', 1);
    const [raw] = raws;
    if (raw === undefined) throw new Error('no letter');
    const first = await killBetweenStoreAndRedis(gw, raw, true);
    // Redis runs the command the dead listener had sent: a `received` record pointing at the
    // committed blob, no job (it expires after a day unless the message comes again).
    const records = await reader.keys(gw.store.keys.record('*'));
    expect(records).toHaveLength(1);
    const left = await gw.store.get((records[0] ?? '').slice(gw.store.keys.record('').length));
    expect(left).toMatchObject({ state: 'received', rawKey: first });
    expect(await gw.queue.getJobCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 });

    await gw.start('smtp');
    await gw.start('worker');
    const delivery = await deliver(gw.port, raw);
    expect(delivery.refusals).toEqual([]);
    expect(delivery.intakeId).toBe(left?.intakeId);
    // Two blobs of the same message (the one committed before the kill, the one of the delivery
    // again), one record pointing at one of them, one letter.
    const blobs = (await blobsIn(gw.rawStore)).committed;
    const rawKey = (await gw.store.get(delivery.intakeId))?.rawKey ?? 'no raw key';
    expect(blobs).toHaveLength(2);
    expect(blobs).toContain(first);
    expect(blobs).toContain(rawKey);
    expect(await reader.keys(gw.store.keys.record('*'))).toEqual([gw.store.keys.record(delivery.intakeId)]);
    expectOneLetterEach(titles, await settled(gw.store, [delivery.intakeId]));
  });

  it('with 30 clients in flight: every 250 is stored and queued; the rest, re-sent, end as one letter each', async () => {
    const gw = await gateway();
    const listener = await gw.start('smtp');
    const { titles, raws } = await letters('Listener killed in flight', 30, 400_000);
    let accepted = 0;
    let inFlight = 0;
    let inFlightAtKill = 0;
    let killed: Promise<unknown> | undefined;
    const killAt = 5 + Math.floor(random() * 10); // at the 5th to 14th 250
    // Clients arrive 20 ms apart, so at the kill some are in DATA, some storing, some not yet there.
    const first = await Promise.all(
      raws.map(async (raw, i) => {
        await delay(i * 20);
        inFlight += 1;
        const reply = await offer(gw.port, raw);
        inFlight -= 1;
        if (reply.code === 250 && ++accepted === killAt) {
          inFlightAtKill = inFlight;
          killed = listener.stop('SIGKILL');
        }
        return reply;
      }),
    );
    await killed;
    const answered = first.flatMap((r) => (r.code === 250 ? [intakeIdOf(r.text)] : []));
    expect(answered.length).toBeGreaterThanOrEqual(killAt);
    expect(inFlightAtKill).toBeGreaterThanOrEqual(3); // the kill did catch clients in flight
    expect(first.filter((r) => r.code !== 250).map((r) => r.code)).toEqual(first.filter((r) => r.code !== 250).map(() => 0));

    // Nothing answered 250 is missing: record queued, raw message kept, job in the queue.
    const facts = await Promise.all(
      answered.map(async (id) => ({
        id,
        state: (await gw.store.get(id))?.state,
        raw: (await storedMessage(gw.store, gw.rawStore, id)) !== undefined,
        job: (await gw.queue.getJob(id)) !== undefined,
      })),
    );
    expect(facts.filter((f) => f.state !== 'queued' || !f.raw || !f.job)).toEqual([]);
    const storedUnanswered = (await storedKeys(gw)).filter((k) => k.startsWith(gw.store.keys.record(''))).length - answered.length;
    process.stdout.write(
      `listener kill: ${inFlightAtKill} clients in flight, ${answered.length}/30 answered 250, ${storedUnanswered} stored but not answered\n`,
    );

    await gw.start('smtp');
    await gw.start('worker');
    const resent = await Promise.all(raws.map((raw, i) => (first[i]?.code === 250 ? undefined : deliver(gw.port, raw))));
    const ids = first.map((r, i) => (r.code === 250 ? intakeIdOf(r.text) : (resent[i]?.intakeId ?? '')));
    expect(new Set(ids).size).toBe(30); // one intake per message, whether answered before the kill or after
    expectOneLetterEach(titles, await settled(gw.store, ids));
  });
});

describe('the worker killed at random moments', () => {
  it('50 messages, 6 kills at random points of the API conversation: one letter each', async () => {
    const gw = await gateway();
    await gw.start('smtp');
    let worker = await gw.start('worker');
    const { titles, raws } = await letters('Worker killed at random', 50);
    const sending = deliverAll(gw.port, raws, 5);
    const processingAtKill: number[] = [];
    for (let kill = 0; kill < 6; kill++) {
      await api.answered(1 + Math.floor(random() * 15));
      await worker.stop('SIGKILL');
      processingAtKill.push((await gw.store.countByState()).get('processing') ?? 0);
      worker = await gw.start('worker');
    }
    const ids = (await sending).map((d) => d.intakeId);
    process.stdout.write(`worker kills: intakes processing at each kill ${JSON.stringify(processingAtKill)}\n`);
    expect(processingAtKill.filter((n) => n > 0).length).toBeGreaterThan(0); // kills landed mid-job
    expectOneLetterEach(titles, await settled(gw.store, ids));
  });
});

describe('Redis SIGKILLed and restarted while messages flow', () => {
  it('every 250 survives, refused clients retry, listener and worker reconnect alone: one letter each', async () => {
    const gw = await gateway();
    const listener = await gw.start('smtp');
    const worker = await gw.start('worker');
    const { titles, raws } = await letters('Redis restarted', 40);
    const acceptedIds: string[] = [];
    const waiters: { at: number; done: () => void }[] = [];
    const sending = deliverAll(gw.port, raws, 4, (d) => {
      acceptedIds.push(d.intakeId);
      for (const w of waiters.filter((x) => acceptedIds.length >= x.at)) w.done();
    });
    const accepted = (n: number) => new Promise<void>((done) => (acceptedIds.length >= n ? done() : waiters.push({ at: n, done })));
    const refusedWith451 = () => listener.logs.filter((l) => l.event === 'smtp.refused' && l.code === 451).length;

    const lost: string[][] = [];
    for (const at of [8, 24]) {
      await accepted(at);
      const answered = [...acceptedIds];
      const refusedBefore = refusedWith451();
      await redis.kill();
      await waitFor(() => refusedWith451() > refusedBefore, 20_000); // a client was told to try later
      await redis.restart();
      const records = await Promise.all(answered.map((id) => gw.store.get(id)));
      lost.push(answered.filter((_, i) => records[i] === undefined));
    }
    const deliveries = await sending;
    expect(lost).toEqual([[], []]); // appendfsync always: nothing acknowledged was lost
    const refusals = deliveries.flatMap((d) => d.refusals);
    expect(refusals.length).toBeGreaterThan(0); // clients did feel the outage
    expect(refusals.filter((c) => c !== 0 && c !== 451)).toEqual([]);
    expectOneLetterEach(
      titles,
      await settled(
        gw.store,
        deliveries.map((d) => d.intakeId),
      ),
    );
    expect([listener.child.exitCode, worker.child.exitCode]).toEqual([null, null]); // never restarted
  });
});

describe('the Sender API down, then 429 with Retry-After, then 500s', () => {
  it("the open circuit holds the API's letters without spending an attempt; every letter arrives once after recovery, in bounded time", async () => {
    // A trial every 500 ms, so that several trials meet the outage while the test watches.
    const gw = await gateway({ API_CIRCUIT_PROBE_INTERVAL_MS: '500' });
    await api.down();
    await gw.start('smtp');
    const worker = await gw.start('worker');
    const { titles, raws } = await letters('API outage', 10);
    const ids = (await deliverAll(gw.port, raws, 5)).map((d) => d.intakeId);
    // Down while the worker tries intakes (connection refused): the API circuit opens and holds its
    // letters, so none of them ends while the API is away, and no attempt is spent once it is open.
    await worker.waitForLog((l) => l.event === 'worker.api_circuit_open', 60_000);
    const trialsFailed = () => worker.logs.filter((l) => l.event === 'worker.api_trial_failed').length;
    await waitFor(() => trialsFailed() >= 3, 30_000); // trials reached the closed port, and were held again
    const during = await Promise.all(ids.map((id) => gw.store.get(id)));
    expect(during.filter((r) => r === undefined || ['submitted', 'rejected', 'failed'].includes(r.state))).toEqual([]);
    // The attempts BullMQ counts as spent are those of the calls that failed before the circuit
    // opened (each logged intake.api_error before worker.api_circuit_open; a call that fails once it
    // is open, a trial's included, is logged after it and held). The record's `attempts` is the
    // number of the run that claimed it last (attemptsMade + 1): a run held after its claim shows
    // the next number without spending it, so it is not the count asserted here.
    const openAt = worker.logs.findIndex((l) => l.event === 'worker.api_circuit_open');
    const spentBeforeOpen = (id: string) =>
      worker.logs.slice(0, openAt).filter((l) => l.event === 'intake.api_error' && l.intakeId === id).length;
    const jobs = await Promise.all(ids.map((id) => gw.queue.getJob(id)));
    expect(ids.map((id, i) => ({ id, spent: jobs[i]?.attemptsMade }))).toEqual(ids.map((id) => ({ id, spent: spentBeforeOpen(id) })));
    expect(worker.logs.filter((l) => l.event === 'worker.api_circuit_open')).toHaveLength(1);

    api.store.injectFault({ status: 429, count: 3, retryAfterSeconds: 1, paths: '/api/v1/letters' });
    api.store.injectFault({ status: 500, count: 6, paths: '/api/v1/letters' });
    const recovered = Date.now();
    await api.up();
    const records = await settled(gw.store, ids, 60_000);
    const tookMs = Date.now() - recovered;
    expect(api.store.faults.pendingCount()).toBe(0); // the 429s and 500s were all served
    expectOneLetterEach(titles, records);
    process.stdout.write(`API outage: all ${ids.length} letters ${tookMs} ms after the API came back\n`);
    expect(tookMs).toBeLessThan(30_000);
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${boundMs} ms`);
    await delay(50);
  }
}
