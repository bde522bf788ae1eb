// The whole path over real processes and protocols: `letter-intake smtp` and `letter-intake
// worker` as compiled processes, real Redis, the sandbox Sender API over HTTP. A worker killed
// at each step, an API that fails for a while, credentials an operator must fix: every accepted
// message ends as exactly one PendingApproval letter.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { fixture, FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { runCommand, startRole, type RoleProcess } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { IntakeStore } from '../../src/intake/store.js';

const redis = connectTestRedis();
let sandbox: RunningSandbox;
let env: Record<string, string>;
let store: IntakeStore;
let smtpPort: number;
let listener: RoleProcess;
const workers: RoleProcess[] = [];

beforeAll(async () => {
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  smtpPort = await freePort();
  const prefix = randomPrefix();
  env = testEnv(prefix, { SMTP_PORT: String(smtpPort), SENDER_API_URL: sandbox.url, HTTP_PORT: '0', WORKER_LOCK_MS: '2000', WORKER_BACKOFF_BASE_MS: '100', WORKER_BACKOFF_CAP_MS: '1000' });
  store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  listener = await startRole('smtp', env);
});

afterEach(async () => {
  sandbox.store.holds.release();
  sandbox.store.clearFaults();
  await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
});

afterAll(async () => {
  await listener.stop();
  await sandbox.close();
  await dropPrefix(redis, env['REDIS_PREFIX'] ?? '');
  redis.disconnect();
});

async function startWorker(extra: Record<string, string> = {}): Promise<RoleProcess> {
  const worker = await startRole('worker', { ...env, ...extra });
  workers.push(worker);
  return worker;
}


async function deliver(raw: Buffer): Promise<string> {
  const replies = await sendOnce(smtpPort, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies['data']?.text ?? '');
}

async function settled(intakeId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await store.get(intakeId);
    if (record !== undefined && ['submitted', 'rejected', 'failed'].includes(record.state)) return record;
    if (Date.now() > deadline) throw new Error(`intake ${intakeId} is ${record?.state ?? 'missing'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lettersTitled = (title: string) => sandbox.store.allLetters().filter((l) => l.title === title);

describe('the whole path over real processes', () => {
  it('turns a signed e-mail into one PendingApproval letter', async () => {
    await startWorker();
    const id = await deliver(fixture('pdf-attachment.eml'));
    const record = await settled(id);
    expect(record.state).toBe('submitted');
    expect(lettersTitled('Annual statement 2026').map((l) => [l.id, l.status])).toEqual([[record.letterId, 'PendingApproval']]);
  });
});

describe('exactly once when the worker is killed', () => {
  const steps = [
    ['after parse, before the draft is saved', 'PUT', '/api/v1/letters/draft', 'before'],
    ['after the draft is saved, before its id is recorded', 'PUT', '/api/v1/letters/draft', 'after'],
    ['after the draft id is recorded, before submit', 'POST', '/api/v1/letters/submit', 'before'],
    ['after submit, before the record is updated', 'POST', '/api/v1/letters/submit', 'after'],
  ] as const;

  it.each(steps)('%s: the restarted worker ends with exactly one letter', async (step, method, path, phase) => {
    const title = `Killed ${step}`;
    sandbox.store.holds.add({ method, path, phase });
    const first = await startWorker();
    const id = await deliver(await signedLetter({ title }));
    await sandbox.store.holds.waitForHeld();
    await first.stop('SIGKILL');
    sandbox.store.holds.release();

    await startWorker();
    const record = await settled(id);
    expect(record.state).toBe('submitted');
    const letters = lettersTitled(title).filter((l) => l.status !== 'Draft');
    expect(letters.map((l) => [l.id, l.status])).toEqual([[record.letterId, 'PendingApproval']]);
    expect(lettersTitled(title)).toHaveLength(1); // no stray draft either
  });
});

describe('an API that fails for a while', () => {
  it.each([
    ['503 ServiceUnavailable', { status: 503, count: 3 }],
    ['429 with Retry-After', { status: 429, count: 2, retryAfterSeconds: 1 }],
    ['500 UnexpectedError', { status: 500, count: 3 }],
  ] as const)('%s: the letter arrives after recovery, once', async (what, fault) => {
    const title = `Outage ${what}`;
    sandbox.store.injectFault({ ...fault, paths: '/api/v1/letters' });
    await startWorker();
    const record = await settled(await deliver(await signedLetter({ title })));
    expect(record, JSON.stringify(record)).toMatchObject({ state: 'submitted' });
    expect(record.attempts).toBeGreaterThanOrEqual(fault.status === 429 ? 1 : 2);
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);
  });
});

describe('credentials an operator must fix', () => {
  it('fails with InvalidCredentials, and replay succeeds once the secret is fixed', async () => {
    const wrong = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: { apiClientSecret: string }[] };
    for (const s of wrong.senders) s.apiClientSecret = 'wrong-secret';
    const wrongFile = join(tmpdir(), `senders-wrong-${process.pid}.json`);
    writeFileSync(wrongFile, JSON.stringify(wrong));
    const broken = await startWorker({ SENDERS_FILE: wrongFile });
    const title = 'Credentials fixed later';
    const id = await deliver(await signedLetter({ title }));
    const failed = await settled(id);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'InvalidCredentials' });
    expect(failed.traceId).toMatch(/\S+/);
    expect(await redis.pttl(store.keys.raw(id))).toBe(-1); // a failed intake keeps its message for replay
    expect(lettersTitled(title)).toHaveLength(0);
    await broken.stop('SIGKILL');

    await startWorker();
    const replay = await runCommand(['replay', id], env);
    expect(replay.code).toBe(0);
    const submitted = await settled(id);
    expect(submitted.state).toBe('submitted');
    expect(submitted.errorCode).toBeUndefined(); // the earlier failure no longer describes it
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);

    const again = await runCommand(['replay', id], env);
    expect(again.code).toBe(1);
    expect(again.text).toContain('only failed intakes can be replayed');
  });
});
