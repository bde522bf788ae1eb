// Replica acknowledgement before 250 (REDIS_REPLICAS_ACK): a primary and one replica, real
// processes. The listener answers 250 only once the replica holds the intake; with the replica
// stopped (SIGSTOP) it answers 451 4.3.0 within ENQUEUE_TIMEOUT_MS, and the MTA's retry after the
// replica is back gets 250 with the same intake id.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis } from '../../src/redis/connections.js';
import { replicaAck } from '../../src/redis/replica-ack.js';
import { waitForRedis } from '../../src/runtime/redis.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { randomPrefix, standaloneTopology } from '../helpers/redis.js';
import { type ReplicatedRedis, startReplicatedRedis } from '../helpers/sentinel-set.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const ENQUEUE_TIMEOUT_MS = 1500;
let servers: ReplicatedRedis;
let gateway: TestGateway;
let replicaReader: Redis;

beforeAll(async () => {
  servers = await startReplicatedRedis(1);
  gateway = await startTestGateway({
    env: { REDIS_URL: servers.primary.url, REDIS_REPLICAS_ACK: '1', ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) },
  });
  replicaReader = new Redis(servers.replicas[0]?.url ?? '', { maxRetriesPerRequest: 1 });
  replicaReader.on('error', () => {});
});
afterAll(async () => {
  replicaReader.disconnect();
  await gateway.close();
  await servers.destroy();
});

const replica = () => {
  const server = servers.replicas[0];
  if (server === undefined) throw new Error('no replica');
  return server;
};
const deliver = async (raw: Buffer) => (await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw })).data;

describe('replica acknowledgement before 250', () => {
  it('answers 250 once the replica holds the record', async () => {
    const reply = await deliver(await signedLetter({ title: 'held by a replica' }));
    expect(reply?.text).toMatch(/^250 2\.0\.0 queued as /);
    const id = intakeIdOf(reply?.text ?? '');
    expect(await replicaReader.exists(`${gateway.prefix}:record:${id}`)).toBe(1);
  });

  it('answers 451 4.3.0 within the bound while the replica is stopped, and 250 with the same intake to the retry', async () => {
    const raw = await signedLetter({ title: 'replica stopped' });
    replica().pause();
    let during: Awaited<ReturnType<typeof deliver>>;
    const started = Date.now();
    try {
      during = await deliver(raw);
    } finally {
      replica().resume();
    }
    expect(during?.text).toMatch(/^451 4\.3\.0 temporarily unable to store the message \(ref /);
    expect(Date.now() - started).toBeLessThan(ENQUEUE_TIMEOUT_MS + 2000);
    const refused = gateway.logs.find((l) => l.event === 'smtp.refused' && l.code === 451);
    expect(JSON.stringify(refused?.err)).toContain('ReplicasBehind');

    const retry = await deliver(raw);
    expect(retry?.text).toMatch(/^250 2\.0\.0 queued as /);
    const records = await gateway.store.list('queued', 1000);
    expect(records.filter((r) => r.subject === 'replica stopped')).toHaveLength(1);
  });
});

describe('a re-delivery answered from the record it found', () => {
  it('waits for the replicas too (its tick covers the record it read): 451 while the replica is stopped', async () => {
    const raw = await signedLetter({ title: 'delivered twice' });
    const first = await deliver(raw);
    expect(first?.text).toMatch(/^250 2\.0\.0 queued as /);
    replica().pause();
    let again: Awaited<ReturnType<typeof deliver>>;
    try {
      again = await deliver(raw);
    } finally {
      replica().resume();
    }
    expect(again?.text).toMatch(/^451 4\.3\.0 /);
    expect((await deliver(raw))?.text).toBe(first?.text);
  });
});

describe('the group commit', () => {
  it('acknowledges callers waiting together with few rounds, each round one tick', async () => {
    const connection = openRedis(standaloneTopology(servers.primary.url), { kind: 'producer', commandTimeoutMs: 3000 });
    const tickKey = `${randomPrefix()}:replica-tick`;
    await waitForRedis(connection, standaloneTopology(servers.primary.url), 5000);
    try {
      const ack = replicaAck(connection, tickKey, 1, Date.now);
      const verdicts = await Promise.all(Array.from({ length: 20 }, () => ack.acknowledge(Date.now() + 2000)));
      expect(verdicts.every((v) => v.kind === 'acknowledged')).toBe(true);
      // The first caller starts a round; the 19 arriving while it is in flight share the next.
      expect(Number(await connection.get(tickKey))).toBe(2);
    } finally {
      await connection.del(tickKey);
      connection.disconnect();
    }
  });

  it('says short, with the count, when no replica answers before the deadline', async () => {
    const connection = openRedis(standaloneTopology(servers.primary.url), { kind: 'producer', commandTimeoutMs: 3000 });
    const tickKey = `${randomPrefix()}:replica-tick`;
    await waitForRedis(connection, standaloneTopology(servers.primary.url), 5000);
    replica().pause();
    try {
      const started = Date.now();
      const verdict = await replicaAck(connection, tickKey, 1, Date.now).acknowledge(Date.now() + 300);
      expect(verdict).toEqual({ kind: 'short', replicas: 0, wanted: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      replica().resume();
      await connection.del(tickKey);
      connection.disconnect();
    }
  });
});
