// The worker's checkpoints with REDIS_REPLICAS_ACK=1: the draft marker must be on the replica
// before the draft is requested. With the replica stopped, the job goes back without spending
// an attempt and no draft is made; once the replica is back, the letter is made once.

import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway, testRawDir } from '../helpers/gateway.js';
import { randomPrefix } from '../helpers/redis.js';
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

describe("the worker's checkpoints on the replicas", () => {
  it('makes no draft while the replica is stopped, spends no attempt, and makes the letter once it is back', async () => {
    const replica = servers.replicas[0];
    if (replica === undefined) throw new Error('no replica');
    const prefix = randomPrefix();
    // Two gateways, one Redis prefix and one raw store between them.
    const env = {
      REDIS_URL: servers.primary.url,
      REDIS_REPLICAS_ACK: '1',
      ENQUEUE_TIMEOUT_MS: '800',
      REDIS_PREFIX: prefix,
      RAW_STORE_URL: pathToFileURL(testRawDir(prefix)).href,
    };
    // Accepted while the replica runs; the worker starts after it stopped.
    const listener = await startTestGateway({ env });
    gateways.push(listener);
    const title = 'checkpoint waits for the replica';
    const reply = await sendOnce(listener.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title }),
    });
    const id = intakeIdOf(reply.data?.text ?? '');

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
});
