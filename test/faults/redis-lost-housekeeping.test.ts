// Redis emptied (FLUSHALL) after messages were answered 250, and no `recover` run: the worker's
// raw-store housekeeping alone brings them back (docs/design.md §21). Real processes (listener,
// workers), a private redis-server, the sandbox Sender API over HTTP, the file raw store.
//
// Before the loss: one intake has ended with its letter, three wait in the queue (no worker runs),
// and one message was answered 451 (Redis stalled past ENQUEUE_TIMEOUT_MS after its blob was
// committed). After FLUSHALL every blob is unreferenced; the blobs are dated back past
// RAW_STORE_ORPHAN_AFTER_MS (the housekeeping judges a blob by its age, and the bound's minimum is
// a minute) and a worker starts. Its housekeeping must recover each intake `accepted/` names
// (record, job, and in the end one letter; the ended one ended, with its letter and no job) and
// delete the blob of the 451 as an orphan.
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv, testRawDir } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { blobsIn } from '../helpers/raw-stores.js';
import { randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const QUEUED = 3;
const ENDED_STATES = ['submitted', 'rejected', 'failed'];
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: RedisServer;
let redis: Redis;
let sandbox: RunningSandbox;
const processes: RoleProcess[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url, { maxRetriesPerRequest: 3 });
  sandbox = await startSandbox({
    directory: loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {}),
    clock: Date.now,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
  });
});

afterAll(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop('SIGKILL')));
  redis.disconnect();
  await sandbox.close();
  await server.destroy();
});

/** Letters (drafts left unsubmitted aside) the sandbox holds under a title, by status. */
const lettersTitled = (title: string) =>
  sandbox.store
    .allLetters()
    .filter((l) => l.title === title && l.status !== 'Draft')
    .map((l) => ({ id: l.id, status: l.status }));

async function until(what: string, check: () => boolean | Promise<boolean>, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await delay(100);
  }
}

describe('Redis emptied after messages were answered 250, then only the worker housekeeping', () => {
  it('brings back each intake accepted/ names (record, job, one letter; the ended one as it ended) and deletes the blob of a 451', async () => {
    const prefix = randomPrefix();
    const smtpPort = await freePort();
    const env = testEnv(prefix, {
      REDIS_URL: server.url,
      SENDER_API_URL: sandbox.url,
      SMTP_PORT: String(smtpPort),
      OPS_HTTP_PORT: '0',
      ENQUEUE_TIMEOUT_MS: '1000',
      RAW_STORE_SWEEP_INTERVAL_MS: '1000',
    });
    const rawDir = testRawDir(prefix);
    const rawStore = fileRawStore({ dir: rawDir, timeoutMs: 5000 });
    const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
    const queue = new Queue(INTAKE_QUEUE, { connection: redis, prefix });
    const start = async (role: 'smtp' | 'worker') => {
      const proc = await startRole(role, env);
      processes.push(proc);
      return proc;
    };
    const committed = async () => (await blobsIn(rawStore)).committed.sort();
    const deliver = async (title: string) => {
      const raw = await signedLetter({ title });
      const replies = await sendOnce(smtpPort, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
      return replies.data ?? { code: 0, text: '(no reply to DATA)' };
    };
    const settled = async (id: string): Promise<IntakeRecord | undefined> => {
      await until(`intake ${id} ended`, async () => ENDED_STATES.includes((await store.get(id))?.state ?? ''), 60_000);
      return store.get(id);
    };
    const run = Date.now();
    await start('smtp');

    // One intake ends with its letter while a worker runs.
    const endedTitle = `Housekeeping recovers ${run} ended`;
    const first = await start('worker');
    const endedReply = await deliver(endedTitle);
    expect(endedReply.code).toBe(250);
    const endedId = intakeIdOf(endedReply.text);
    const endedBefore = await settled(endedId);
    expect(endedBefore?.state).toBe('submitted');
    await first.stop('SIGTERM');

    // Three wait in the queue.
    const queuedTitles = Array.from({ length: QUEUED }, (_, i) => `Housekeeping recovers ${run} queued ${i}`);
    const queuedIds: string[] = [];
    for (const title of queuedTitles) {
      const reply = await deliver(title);
      expect(reply.code).toBe(250);
      queuedIds.push(intakeIdOf(reply.text));
    }
    expect((await Promise.all(queuedIds.map((id) => store.get(id)))).map((r) => r?.state)).toEqual(queuedIds.map(() => 'queued'));

    // One answered 451: Redis stalls past ENQUEUE_TIMEOUT_MS after the blob is committed.
    const refusedTitle = `Housekeeping recovers ${run} answered 451`;
    const blobsBefore451 = await committed();
    server.pause();
    const refused = await deliver(refusedTitle).finally(() => server.resume());
    expect(refused.code).toBe(451);
    const refusedBlobs = (await committed()).filter((key) => !blobsBefore451.includes(key));
    expect(refusedBlobs).toHaveLength(1);

    const answered = [endedId, ...queuedIds];
    const rawKeys = new Map((await Promise.all(answered.map((id) => store.get(id)))).map((r, i) => [answered[i], r?.rawKey]));
    const blobsAtLoss = await committed();
    expect(blobsAtLoss).toEqual([...rawKeys.values(), ...refusedBlobs].sort());

    await redis.flushall();
    expect(await redis.dbsize()).toBe(0);
    // As if the loss were older than RAW_STORE_ORPHAN_AFTER_MS (default and here: 1 h).
    const old = new Date(Date.now() - 2 * 3_600_000);
    for (const key of blobsAtLoss) utimesSync(join(rawDir, key), old, old);

    const second = await start('worker');
    const records = await Promise.all(queuedIds.map((id) => settled(id)));
    await until('the blob of the 451 deleted', async () => !(await committed()).includes(refusedBlobs[0] ?? ''), 30_000);

    // The housekeeping, not a recover run, found each: one alert line per intake answered 250.
    const alerted = second.logs.filter((l) => l.event === 'raw_store.accepted_without_record').map((l) => l.intakeId);
    expect([...new Set(alerted)].sort()).toEqual([...answered].sort());
    // Each queued intake is back on its own blob, ran as a job (the flushed queue held none), and made one letter.
    for (const [i, id] of queuedIds.entries()) {
      const job = await queue.getJob(id);
      expect({
        id,
        state: records[i]?.state,
        rawKey: records[i]?.rawKey,
        job: await job?.getState(),
        letters: lettersTitled(queuedTitles[i] ?? ''),
      }).toEqual({
        id,
        state: 'submitted',
        rawKey: rawKeys.get(id),
        job: 'completed',
        letters: [{ id: records[i]?.letterId, status: 'PendingApproval' }],
      });
    }
    // The ended intake is back ended, with its letter and no job: no second letter.
    const endedAfter = await store.get(endedId);
    expect({ state: endedAfter?.state, letterId: endedAfter?.letterId, job: await queue.getJob(endedId) }).toEqual({
      state: 'submitted',
      letterId: endedBefore?.letterId,
      job: undefined,
    });
    expect(lettersTitled(endedTitle)).toEqual([{ id: endedBefore?.letterId, status: 'PendingApproval' }]);
    // The 451 was never promised: its blob went as an orphan, and it made no intake and no letter.
    expect(await committed()).toEqual([...rawKeys.values()].sort());
    expect((await redis.keys(store.keys.record('*'))).sort()).toEqual(answered.map((id) => store.keys.record(id)).sort());
    expect(lettersTitled(refusedTitle)).toEqual([]);
    await queue.close();
  });
});
