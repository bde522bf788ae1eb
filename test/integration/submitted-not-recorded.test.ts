// A letter the Sender API has submitted is never reported "not created": when recording the
// submit meets a storage error (here Redis refusing the record's writes by ACL, as a failover's
// READONLY or an OOM would), on the last attempt, the job comes back without spending an attempt
// and the intake ends submitted once Redis takes writes again. A private redis-server, real
// SMTP, BullMQ and the sandbox API; the submit's answer is held while the permission goes.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let server: RedisServer;
let admin: Redis;
let gateway: TestGateway;

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.call('ACL', 'SETUSER', 'gateway', 'on', '>gateway-secret', '~*', '&*', '+@all');
  gateway = await startTestGateway({
    worker: true,
    env: {
      REDIS_URL: `redis://gateway:gateway-secret@127.0.0.1:${server.port}`,
      WORKER_ATTEMPTS: '1',
      WORKER_SWEEP_INTERVAL_MS: '500',
      WORKER_SWEEP_AGE_MS: '2000',
    },
  });
});
afterAll(async () => {
  await gateway.close();
  admin.disconnect();
  await server.destroy();
});

async function jobState(intakeId: string, among: readonly string[]): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await gateway.queue.getJobState(intakeId);
    if (among.includes(state)) return state;
    if (Date.now() > deadline) throw new Error(`the job of ${intakeId} is ${state}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const laterLines = (intakeId: string) => gateway.logs.filter((l) => l.event === 'intake.storage_later' && l.intakeId === intakeId);

describe('a storage error after the submit', () => {
  it('on the last attempt puts the job back without spending an attempt, and the intake ends submitted, never failed', async () => {
    const sandbox = gateway.sandbox;
    if (sandbox === undefined) throw new Error('no sandbox');
    // The API submits the letter; its answer waits until the record's writes are refused.
    sandbox.store.holds.add({ method: 'POST', path: '/api/v1/letters/submit', phase: 'after', count: 1 });
    const title = `Submitted, then Redis refused ${randomUUID()}`;
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title }),
      helo: FIXTURE_SESSION.helo,
    });
    const intakeId = intakeIdOf(replies.data?.text ?? '');
    await sandbox.store.holds.waitForHeld(1);
    // Reads of everything, writes only to the queues' keys: the intake record refuses its writes.
    const { prefix } = gateway;
    await admin.call('ACL', 'SETUSER', 'gateway', 'resetkeys', '%R~*', `~${prefix}:intake:*`, `~${prefix}:notices:*`);
    sandbox.store.holds.release();
    expect(await jobState(intakeId, ['delayed', 'failed', 'completed'])).toBe('delayed');
    expect((await gateway.store.get(intakeId))?.state).toBe('processing');
    // It comes back while Redis still refuses: the claim is refused too, and again no attempt is spent.
    await vi.waitFor(
      () =>
        expect(laterLines(intakeId).map((l) => l.msg)).toEqual([
          expect.stringContaining('is submitted, but recording it failed'),
          expect.stringContaining('could not be claimed'),
        ]),
      { timeout: 5000 },
    );
    expect(await jobState(intakeId, ['delayed', 'failed', 'completed'])).toBe('delayed');
    await admin.call('ACL', 'SETUSER', 'gateway', 'allkeys');

    const letters = sandbox.store.allLetters().filter((l) => l.title === title);
    expect(letters.map((l) => l.status)).toEqual(['PendingApproval']);
    const record = await gateway.settled(intakeId);
    expect(record).toMatchObject({ state: 'submitted', letterId: letters[0]?.id });
    expect(record.timeline.failed).toBeUndefined();
    expect(record.earlierRuns).toBeUndefined();
    expect(await jobState(intakeId, ['completed', 'failed'])).toBe('completed');
    expect(record.notices?.failed).toBeUndefined();
  });
});
