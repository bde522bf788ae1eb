// An outcome recorded, and then queueing its notice refused by Redis (here a real Redis whose ACL
// denies the worker writes to a notice job's keys, as a write-refusing Redis would): even
// on the job's last attempt, the job comes back without spending an attempt and queues the
// notice once Redis takes it. The outcome is not decided again, and the sender still hears.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { INTAKE_QUEUE } from '../../src/intake/queue.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let server: RedisServer;
let admin: Redis;
let gateway: TestGateway;
let intakeQueue: Queue;
const prefix = randomPrefix();
const USER = ['worker', 'on', '>secret', '+@all', 'allchannels'];

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  await admin.call('ACL', 'SETUSER', ...USER, '~*');
  const url = new URL(server.url);
  url.username = 'worker';
  url.password = 'secret';
  intakeQueue = new Queue(INTAKE_QUEUE, { connection: admin, prefix });
  gateway = await startTestGateway({ worker: true, env: { REDIS_URL: url.href, REDIS_PREFIX: prefix, WORKER_ATTEMPTS: '1' } });
});
afterAll(async () => {
  await gateway.close();
  await intakeQueue.close();
  admin.disconnect();
  await server.destroy();
});

describe('a notice Redis refuses to queue after the outcome was recorded', () => {
  it('is queued once Redis takes it again, though the job was on its last attempt', async () => {
    // Every key may be written but the notices queue's id counter and its jobs' hashes (their ids
    // start with the intake id's "in"): the notices queue still runs, every add (it increments the
    // counter) is refused, and the jobs' hashes stay readable for the notice sweep.
    await admin.call(
      'ACL',
      'SETUSER',
      'worker',
      'resetkeys',
      `%RW~${prefix}:[^n]*`,
      `%RW~${prefix}:notices:[^i]*`,
      `%R~${prefix}:notices:in*`,
    );
    gateway.sandbox?.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });
    const raw = await signedLetter({ title: 'Refused by the API, notice refused by Redis' });
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    const intakeId = intakeIdOf(replies.data?.text ?? '');
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'rejected', reasonCode: 'ApiRejected' });
    const refusals = () => gateway.logs.filter((l) => l.event === 'intake.notice_not_queued' && l.intakeId === intakeId);
    await vi.waitFor(() => expect(refusals()).toHaveLength(1), { timeout: 5000 });
    expect(refusals()[0]).toMatchObject({ level: 50, outcome: 'rejected', retryInMs: 5000 });
    expect(await intakeQueue.getJobState(intakeId)).toBe('delayed');
    // Redis still refuses when the job comes back: it goes back again, waiting twice as long
    await vi.waitFor(() => expect(refusals()).toHaveLength(2), { timeout: 10_000 });
    expect(refusals()[1]).toMatchObject({ retryInMs: 10_000 });
    await vi.waitFor(async () => expect(await intakeQueue.getJobState(intakeId)).toBe('delayed'), { timeout: 5000 });
    expect((await intakeQueue.getJob(intakeId))?.attemptsMade).toBe(0);

    await admin.call('ACL', 'SETUSER', 'worker', '~*');
    await (await intakeQueue.getJob(intakeId))?.promote(); // instead of waiting the 10 s out
    // no relay is configured: the notice ends recorded `unsent`, with the text it would have sent
    await vi.waitFor(async () => expect((await gateway.store.get(intakeId))?.notices?.rejected?.state).toBe('unsent'), { timeout: 15_000 });
    expect(await gateway.store.get(intakeId)).toMatchObject({ state: 'rejected', reasonCode: 'ApiRejected' });
    await vi.waitFor(async () => expect(await intakeQueue.getJobState(intakeId)).toBe('completed'), { timeout: 5000 });
  });
});
