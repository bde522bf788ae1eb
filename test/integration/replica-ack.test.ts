// Replica acknowledgement before 250 (REDIS_REPLICAS_ACK): a primary and one replica, real
// processes. The listener answers 250 only once the replica holds the intake; with the replica
// stopped (SIGSTOP) it answers 451 4.3.0 within ENQUEUE_TIMEOUT_MS, and the MTA's retry after the
// replica is back gets 250 with the same intake id.
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeKeys } from '../../src/intake/keys.js';
import type { NewIntake } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { openRedis } from '../../src/redis/connections.js';
import { replicaAck } from '../../src/redis/replica-ack.js';
import { waitForRedis } from '../../src/runtime/redis.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { randomPrefix, standaloneTopology } from '../helpers/redis.js';
import { startRedisServer } from '../helpers/redis-server.js';
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
      const ack = replicaAck({ tick: connection, writer: connection, tickKey, markPrefix: `${tickKey}-mark`, wanted: 1, clock: Date.now });
      const verdicts = await Promise.all(Array.from({ length: 20 }, () => ack.begin().acknowledge(Date.now() + 2000)));
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
      const ack = replicaAck({ tick: connection, writer: connection, tickKey, markPrefix: `${tickKey}-mark`, wanted: 1, clock: Date.now });
      const verdict = await ack.begin().acknowledge(Date.now() + 300);
      expect(verdict).toEqual({ kind: 'short', replicas: 0, wanted: 1, elsewhere: false });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      replica().resume();
      await connection.del(tickKey);
      connection.disconnect();
    }
  });
});

describe('an acknowledgement asked of a server other than the one that took the writes', () => {
  it('says short: a primary with a replica cannot vouch for a record written on another primary', async () => {
    // A: a primary of its own, no replica (the demoted primary of a failover that still takes
    // writes); B: the replicated primary (the new one) that the tick connection reached first.
    const alone = await startRedisServer(['--appendonly', 'no']);
    const writer = openRedis(standaloneTopology(alone.url), { kind: 'producer', commandTimeoutMs: 3000 });
    const tick = openRedis(standaloneTopology(servers.primary.url), { kind: 'producer', commandTimeoutMs: 3000 });
    const prefix = randomPrefix();
    try {
      await waitForRedis(writer, standaloneTopology(alone.url), 5000);
      await waitForRedis(tick, standaloneTopology(servers.primary.url), 5000);
      const keys = intakeKeys(prefix);
      const ack = replicaAck({ tick, writer, tickKey: keys.replicaTick, markPrefix: keys.replicaMarks, wanted: 1, clock: Date.now });
      const store = new IntakeStore(writer, prefix, { rawMs: 60_000, recordMs: 60_000 });
      const session = ack.begin();
      const created = await store.create(intakeOnA, { headers: '', body: UNREAD_BLOB }, Date.now());
      expect(created.created).toBe(true);
      const verdict = await session.acknowledge(Date.now() + 500);
      // B's replica did acknowledge B's tick: the verdict is short because B lacks the writes.
      expect(verdict).toEqual({ kind: 'short', replicas: 0, wanted: 1, elsewhere: true });
      expect(await tick.exists(keys.record(intakeOnA.intakeId))).toBe(0);
    } finally {
      await tick.del(intakeKeys(prefix).replicaTick);
      writer.disconnect();
      tick.disconnect();
      await alone.destroy();
    }
  });
});

describe('a writer that reconnects between its first write and the acknowledgement', () => {
  it('says short: the writes may have gone to a server the mark did not', async () => {
    const topology = standaloneTopology(servers.primary.url);
    const writer = openRedis(topology, { kind: 'producer', commandTimeoutMs: 3000 });
    const tick = openRedis(topology, { kind: 'producer', commandTimeoutMs: 3000 });
    const keys = intakeKeys(randomPrefix());
    try {
      await waitForRedis(writer, topology, 5000);
      await waitForRedis(tick, topology, 5000);
      const ack = replicaAck({ tick, writer, tickKey: keys.replicaTick, markPrefix: keys.replicaMarks, wanted: 1, clock: Date.now });
      // Unchanged socket: the same servers acknowledge.
      expect(await ack.begin().acknowledge(Date.now() + 2000)).toEqual({ kind: 'acknowledged', replicas: 1 });
      const session = ack.begin();
      const reconnected = once(writer, 'ready');
      writer.disconnect(true);
      await reconnected;
      expect(await session.acknowledge(Date.now() + 2000)).toEqual({ kind: 'short', replicas: 0, wanted: 1, elsewhere: true });
    } finally {
      await tick.del(keys.replicaTick);
      writer.disconnect();
      tick.disconnect();
    }
  });
});

const intakeOnA: NewIntake = {
  intakeId: 'inelsewhere0000000000001',
  receivedAt: 1,
  envelopeFrom: 'b@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '127.0.0.1',
  helo: 'mta',
  from: 'letters@acme.example',
  subject: 'written on another primary',
  messageId: '<inelsewhere0000000000001@x>',
  sizeBytes: 4,
  auth: {},
};
