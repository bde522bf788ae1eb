// Graceful shutdown over real processes: a message in flight when SIGTERM arrives is either
// answered 250 and processed, or answered 4xx (the sender retries); never 250 and dropped.
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv, testRawDir } from '../helpers/gateway.js';
import { startRole } from '../helpers/processes.js';
import { blobsIn, storedMessage } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, SmtpClient } from '../helpers/smtp-client.js';

const redis = connectTestRedis();
const prefix = randomPrefix();
// The directory the role processes write messages to (testEnv's RAW_STORE_URL).
const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
const rawStore = fileRawStore({ dir: testRawDir(prefix), timeoutMs: 5000 });
let sandbox: RunningSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  env = testEnv(prefix, {
    SENDER_API_URL: sandbox.url,
    OPS_HTTP_PORT: '0',
    PORTAL_PORT: '0',
    SMTP_CLOSE_TIMEOUT_MS: '5000',
    WORKER_CLOSE_TIMEOUT_MS: '1000',
    WORKER_LOCK_MS: '2000',
  });
});
afterAll(async () => {
  await sandbox.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

async function openTransaction(port: number): Promise<SmtpClient> {
  const { client } = await SmtpClient.open(port);
  await client.command('EHLO mta.acme.example');
  await client.command('MAIL FROM:<bounce@acme.example>');
  await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`);
  expect((await client.command('DATA')).code).toBe(354);
  return client;
}

describe('graceful shutdown of the listener', () => {
  it('finishes a transaction in flight, refuses new connections with 421, and exits 0', async () => {
    const port = await freePort();
    const listener = await startRole('smtp', { ...env, SMTP_PORT: String(port) });
    const letter = await signedLetter({ title: 'In flight at SIGTERM' });
    const raw = dotStuff(letter);
    const client = await openTransaction(port);
    client.write(raw.subarray(0, 1000));

    listener.child.kill('SIGTERM');
    await listener.waitForLog((l) => l.event === 'shutdown.started');
    const late = await SmtpClient.open(port).then(
      ({ greeting, client: c }) => {
        c.close();
        return greeting.code;
      },
      () => 'refused',
    );

    client.write(raw.subarray(1000));
    client.write('.\r\n');
    const reply = await client.read();
    const exit = await listener.exited;

    expect(late === 421 || late === 'refused').toBe(true);
    expect(exit).toBe(0);
    // Within the grace period the transaction is finished, not cut: 250, and it is stored.
    expect(reply.code).toBe(250);
    const record = await store.get(intakeIdOf(reply.text));
    expect(record?.state).toBe('queued');
    const stored = await storedMessage(store, rawStore, intakeIdOf(reply.text));
    // the message as sent, after the Received-SPF and Authentication-Results fields the listener adds
    expect(stored?.subarray(stored.length - letter.length).equals(letter)).toBe(true);
  });

  it('answers 421 to a transaction still open when the grace period ends, storing nothing for it', async () => {
    const port = await freePort();
    const listener = await startRole('smtp', { ...env, SMTP_PORT: String(port), SMTP_CLOSE_TIMEOUT_MS: '500' });
    const keysBefore = (await redis.keys(`${prefix}*`)).sort();
    const blobsBefore = await blobsIn(rawStore);
    const client = await openTransaction(port);
    // Past the raw store's first batch (256 KiB), so the listener has begun writing the message to the store.
    client.write(`Subject: never finished\r\n\r\n${`${'x'.repeat(76)}\r\n`.repeat(5000)}`);
    const writing = async () => (await blobsIn(rawStore)).incomplete.length > blobsBefore.incomplete.length;
    for (let i = 0; i < 200 && !(await writing()); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(await writing()).toBe(true);
    listener.child.kill('SIGTERM');
    const reply = await client.read();
    expect(await listener.exited).toBe(0);
    expect(reply.code === 421 || reply.code === 0).toBe(true); // 421, or the connection closed without any 2xx
    expect(reply.code).not.toBe(250);
    expect((await redis.keys(`${prefix}*`)).sort()).toEqual(keysBefore);
    // Nor in the raw store: no blob committed, and no incomplete write left behind.
    const blobsAfter = await blobsIn(rawStore);
    expect({ committed: blobsAfter.committed.sort(), incomplete: blobsAfter.incomplete.sort() }).toEqual({
      committed: blobsBefore.committed.sort(),
      incomplete: blobsBefore.incomplete.sort(),
    });
    expect(listener.logs.filter((l) => l.event === 'smtp.accepted')).toEqual([]);
  });
});

/**
 * A listener and a worker started with `roleEnv`, and a letter accepted whose submit the API holds
 * for as long as that worker lives: it cannot finish the job.
 */
async function jobHeldAtSubmit(roleEnv: Record<string, string>, title: string) {
  const port = await freePort();
  const listener = await startRole('smtp', { ...roleEnv, SMTP_PORT: String(port) });
  sandbox.store.holds.add({ method: 'POST', path: '/api/v1/letters/submit', phase: 'before' });
  const first = await startRole('worker', roleEnv);
  const { client } = await SmtpClient.open(port);
  const replies = await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: await signedLetter({ title }) });
  client.close();
  const id = intakeIdOf(replies.data?.text ?? '');
  await sandbox.store.holds.waitForHeld();
  return { listener, first, id };
}

describe('graceful shutdown of the worker', () => {
  it('leaves an active job it cannot finish within the bound, exits 0, and a new worker completes it once', async () => {
    const { listener, first, id } = await jobHeldAtSubmit(env, 'Worker stopped mid-job');

    const started = Date.now();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await store.get(id))?.state).not.toBe('submitted');
    sandbox.store.holds.release();

    const second = await startRole('worker', env);
    await second.waitForLog((l) => l.event === 'intake.submitted' && l.intakeId === id, 30_000);
    expect((await store.get(id))?.state).toBe('submitted');
    expect(first.logs.filter((l) => l.event === 'intake.submitted')).toEqual([]);
    expect(
      sandbox.store
        .allLetters()
        .filter((l) => l.title === 'Worker stopped mid-job')
        .map((l) => l.status),
    ).toEqual(['PendingApproval']);
    await second.stop();
    await listener.stop();
  });

  it('gives back a job stopped on its last attempt without spending it: a new worker completes it', async () => {
    const lastAttempt = { ...env, WORKER_ATTEMPTS: '1' };
    const { listener, first, id } = await jobHeldAtSubmit(lastAttempt, 'Worker stopped on the last attempt');

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    sandbox.store.holds.release();
    const queue = new Queue(INTAKE_QUEUE, { connection: redis, prefix });
    const job = await queue.getJob(id);
    // delayed by nothing: the next worker to start takes it
    expect({ state: await job?.getState(), attemptsMade: job?.attemptsMade, delay: job?.delay }).toEqual({
      state: 'delayed',
      attemptsMade: 0,
      delay: 0,
    });
    await queue.close();

    const second = await startRole('worker', lastAttempt);
    await second.waitForLog((l) => l.event === 'intake.submitted' && l.intakeId === id, 30_000);
    expect((await store.get(id))?.state).toBe('submitted');
    expect(
      sandbox.store
        .allLetters()
        .filter((l) => l.title === 'Worker stopped on the last attempt')
        .map((l) => l.status),
    ).toEqual(['PendingApproval']);
    await second.stop();
    await listener.stop();
  });
});
