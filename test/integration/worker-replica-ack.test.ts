// The worker's checkpoints with REDIS_REPLICAS_ACK=1: the draft marker must be on the replica
// before the draft is requested, and a letter id an earlier run recorded must be on it before
// that letter is submitted. With the replica stopped, the job goes back without spending an
// attempt and nothing is made or submitted; once the replica is back, the letter is made once.

import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntakeQueue } from '../../src/intake/queue.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway, testRawDir } from '../helpers/gateway.js';
import { randomPrefix } from '../helpers/redis.js';
import { call, field, letterBody, login } from '../helpers/sandbox.js';
import { type ReplicatedRedis, startReplicatedRedis } from '../helpers/sentinel-set.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let servers: ReplicatedRedis;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  servers = await startReplicatedRedis(1);
});
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await servers.destroy();
});

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A listener (no worker) on a fresh prefix and raw store, shared by the gateways of one test,
 * with one signed letter accepted while the replica runs.
 */
async function acceptOneLetter(title: string) {
  const replica = servers.replicas[0];
  if (replica === undefined) throw new Error('no replica');
  const prefix = randomPrefix();
  const env = {
    REDIS_URL: servers.primary.url,
    REDIS_REPLICAS_ACK: '1',
    ENQUEUE_TIMEOUT_MS: '800',
    REDIS_PREFIX: prefix,
    RAW_STORE_URL: pathToFileURL(testRawDir(prefix)).href,
  };
  const listener = await startTestGateway({ env });
  gateways.push(listener);
  const reply = await sendOnce(listener.port, {
    from: 'bounce@acme.example',
    to: [PROCESSING_ADDRESS],
    raw: await signedLetter({ title }),
  });
  return { replica, prefix, env, listener, title, id: intakeIdOf(reply.data?.text ?? '') };
}

describe("the worker's checkpoints on the replicas", () => {
  it('makes no draft while the replica is stopped, spends no attempt, and makes the letter once it is back', async () => {
    // Accepted while the replica runs; the worker starts after it stopped.
    const { replica, env, id, title } = await acceptOneLetter('checkpoint waits for the replica');

    replica.pause();
    let resumed = false;
    try {
      const worker = await startTestGateway({ env, worker: true });
      gateways.push(worker);
      const sandbox = worker.sandbox;
      if (sandbox === undefined) throw new Error('no sandbox');
      for (let i = 0; i < 100 && !worker.logs.some((l) => l.event === 'intake.replicas_behind'); i += 1) await delay(50);
      expect(worker.logs.find((l) => l.event === 'intake.replicas_behind')?.intakeId).toBe(id);
      await delay(1500);
      expect(sandbox.store.allLetters().filter((l) => l.title === title)).toEqual([]);
      expect((await worker.store.get(id))?.draftRequestedAt).toBeDefined();

      replica.resume();
      resumed = true;
      const record = await worker.settled(id, 20_000);
      expect(record.state).toBe('submitted');
      expect(record.attempts).toBe(1);
      expect(sandbox.store.allLetters().filter((l) => l.title === title)).toHaveLength(1);
    } finally {
      if (!resumed) replica.resume();
    }
  });

  it('submits no letter id an earlier run recorded until the replica holds it', async () => {
    const { replica, prefix, env, id, listener, title } = await acceptOneLetter('an earlier run recorded the letter id');
    // The queue holds the job while the earlier run's state is set up.
    const queue = createIntakeQueue(listener.redis, prefix);
    await queue.pause();
    const worker = await startTestGateway({ env, worker: true });
    gateways.push(worker);
    const sandbox = worker.sandbox;
    if (sandbox === undefined) throw new Error('no sandbox');
    const session = await login(sandbox.url, {
      senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
      apiClientId: 'acme-client',
      apiClientSecret: 'acme-test-secret',
    });
    const letterId = field((await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody({ title }) })).json, 'id');
    if (typeof letterId !== 'string') throw new Error('no draft id');
    const draftStatus = field((await call(sandbox.url, 'GET', `/api/v1/letters/${letterId}`, { session })).json, 'status');
    if (typeof draftStatus !== 'string') throw new Error('no draft status');

    replica.pause();
    let resumed = false;
    try {
      // An earlier run claimed the intake and recorded the letter id; no replica acknowledged it.
      expect((await listener.store.claim(id, ['queued'], Date.now(), { attempts: 1 }, 'an-earlier-run')).ok).toBe(true);
      expect(await listener.store.checkpointLetter(id, 'an-earlier-run', letterId, draftStatus)).toBe('ok');
      await queue.resume();
      const statuses = () =>
        sandbox.store
          .allLetters()
          .filter((l) => l.title === title)
          .map((l) => l.status);
      for (let i = 0; i < 100 && !worker.logs.some((l) => l.event === 'intake.replicas_behind'); i += 1) {
        if (statuses().join() !== draftStatus) break;
        await delay(50);
      }
      await delay(1500);
      expect(statuses()).toEqual([draftStatus]);
      expect(worker.logs.find((l) => l.event === 'intake.replicas_behind')?.intakeId).toBe(id);

      replica.resume();
      resumed = true;
      const record = await worker.settled(id, 20_000);
      expect(record).toMatchObject({ state: 'submitted', letterId });
      expect(
        sandbox.store
          .allLetters()
          .filter((l) => l.title === title)
          .map((l) => [l.id, l.status]),
      ).toEqual([[letterId, 'PendingApproval']]);
    } finally {
      if (!resumed) replica.resume();
      await queue.close();
    }
  });
});
