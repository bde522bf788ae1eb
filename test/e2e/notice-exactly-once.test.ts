// One notice per intake, whatever moment the worker process dies while sending it: the compiled
// `letter-intake smtp` and `worker` processes, real Redis, the sandbox Sender API, and a relay
// on loopback that holds its reply at the moment the worker is killed.
//   - killed while the relay holds its RCPT reply (the "." never went out): the next worker
//     sends the notice, and it is the only one the relay ever completed;
//   - killed after the relay got the "." but before it replied: the next worker does not send it
//     again, and records it `unconfirmed`.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import type { NoticeEntry } from '../../src/intake/notice-fields.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { freePort } from '../../src/runtime/redis.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const redis = connectTestRedis();
let sandbox: RunningSandbox;
let relay: TestRelay;
let env: Record<string, string>;
let store: IntakeStore;
let smtpPort: number;
let listener: RoleProcess;
const workers: RoleProcess[] = [];

beforeAll(async () => {
  const directory = loadSenderDirectory(join(FIXTURE_DIR, 'senders.json'), {});
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  relay = await startTestRelay();
  smtpPort = await freePort();
  const prefix = randomPrefix();
  env = testEnv(prefix, {
    SMTP_PORT: String(smtpPort),
    SENDER_API_URL: sandbox.url,
    OPS_HTTP_PORT: '0',
    PORTAL_PORT: '0',
    NOTICE_SMTP_URL: relay.url,
    WORKER_LOCK_MS: '2000',
  });
  store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  listener = await startRole('smtp', env);
});

afterEach(async () => {
  sandbox.store.clearFaults();
  await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
});

afterAll(async () => {
  await listener.stop();
  await relay.close();
  await sandbox.close();
  await dropPrefix(redis, env.REDIS_PREFIX ?? '');
  redis.disconnect();
});

async function startWorker(): Promise<RoleProcess> {
  const worker = await startRole('worker', env);
  workers.push(worker);
  return worker;
}

/** A letter the Sender API refuses: its intake ends rejected, which earns a notice. */
async function deliverRefusedLetter(title: string): Promise<string> {
  sandbox.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });
  const raw = await signedLetter({ title });
  const replies = await sendOnce(smtpPort, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies.data?.text ?? '');
}

async function notice(intakeId: string): Promise<NoticeEntry | undefined> {
  return (await store.get(intakeId))?.notices?.rejected;
}

async function noticeSettled(intakeId: string, timeoutMs = 30_000): Promise<NoticeEntry> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entry = await notice(intakeId);
    if (entry !== undefined && ['sent', 'unconfirmed', 'failed', 'suppressed', 'unsent'].includes(entry.state)) return entry;
    if (Date.now() > deadline) throw new Error(`notice of ${intakeId} is ${entry?.state ?? 'absent'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const relayedFor = (intakeId: string) => relay.received.filter((m) => m.raw.toString('latin1').includes(`X-Letter-Intake-Id: ${intakeId}`));

describe('one notice when the worker is killed while sending it', () => {
  it('killed before the message was handed over: the next worker sends it, once', async () => {
    const hold = relay.holdNextRcpt();
    const first = await startWorker();
    const intakeId = await deliverRefusedLetter('Killed before the handover');
    await hold.reached;
    expect((await notice(intakeId))?.state).toBe('sending');
    await first.stop('SIGKILL');
    hold.release();

    await startWorker();
    const entry = await noticeSettled(intakeId);
    expect(entry.state).toBe('sent');
    const relayed = relayedFor(intakeId);
    expect(relayed).toHaveLength(1);
    expect(relayed[0]?.rcptTo).toEqual(['letters@acme.example']);
    expect(relayed[0]?.raw.toString('latin1')).toContain(`Message-ID: ${entry.messageId ?? '(none)'}`);
  });

  it('killed after the relay got the message but before it replied: the next worker does not send it again', async () => {
    const hold = relay.holdNextDataReply();
    const first = await startWorker();
    const intakeId = await deliverRefusedLetter('Killed after the handover');
    await hold.reached;
    expect(relayedFor(intakeId)).toHaveLength(1);
    expect((await notice(intakeId))?.state).toBe('committed');
    await first.stop('SIGKILL');
    hold.release();

    await startWorker();
    const entry = await noticeSettled(intakeId);
    expect(entry.state).toBe('unconfirmed');
    expect(entry.reason).toContain('not sent again');
    expect(relayedFor(intakeId)).toHaveLength(1);
  });
});
