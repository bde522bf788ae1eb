// Connections through Sentinel: they find the primary the Sentinels name, and after a failover
// they write to the new primary without being opened again.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRedis } from '../../src/redis/connections.js';
import type { RedisTopology } from '../../src/redis/topology.js';
import { infoField, type SentinelSet, startSentinelSet } from '../helpers/sentinel-set.js';

let set: SentinelSet;
let topology: RedisTopology;
const opened: Redis[] = [];

beforeAll(async () => {
  set = await startSentinelSet({ replicas: 1, sentinels: 1, downAfterMs: 2000, failoverTimeoutMs: 10_000 });
  const configured = loadConfig(set.env).redisTopology;
  if (configured === undefined) throw new Error('no topology from the Sentinel variables');
  topology = configured;
});

afterAll(async () => {
  for (const redis of opened) redis.disconnect();
  await set.destroy();
});

function open(purpose: Parameters<typeof openRedis>[1]): Redis {
  const redis = openRedis(topology, purpose);
  if (!(redis instanceof Redis)) throw new Error('a Sentinel topology opens one connection, not a cluster');
  redis.on('error', () => {}); // refused while the primary changes; the writes below tell
  opened.push(redis);
  return redis;
}

async function eventually<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('Redis through Sentinel', () => {
  it('writes to the primary the Sentinels name, and to the new one after a failover, on the same connections', async () => {
    const worker = open({ kind: 'worker' });
    const producer = open({ kind: 'producer', commandTimeoutMs: 1000 });
    await eventually(() => producer.set('sentinel-test:before', 'written'), 10_000);
    expect(await worker.get('sentinel-test:before')).toBe('written');
    // Replication is asynchronous: the write must be on the replicas before one is promoted, or a
    // loaded machine's failover loses it and the last assertion tests replication lag instead.
    expect(await producer.call('WAIT', set.replicas.length, 10_000)).toBe(set.replicas.length);
    expect(await infoField(set.primary.port, 'server', 'tcp_port')).toBe(String(set.primary.port));
    expect(await worker.info('server')).toContain(`tcp_port:${set.primary.port}`);

    const ask = new Redis({ port: set.sentinelPorts[0] ?? 0, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
    ask.on('error', () => {});
    try {
      await ask.call('SENTINEL', 'FAILOVER', set.masterName);
    } finally {
      ask.disconnect();
    }
    const replica = set.replicas[0];
    if (replica === undefined) throw new Error('no replica');
    expect(await set.waitForNewPrimary(set.primary.port, 30_000)).toBe(replica.port);

    // The old primary is a replica now: a connection still there hears READONLY and moves.
    await eventually(async () => expect(await infoField(set.primary.port, 'replication', 'role')).toBe('slave'), 20_000);
    await eventually(() => producer.set('sentinel-test:after', 'written'), 20_000);
    await eventually(() => worker.set('sentinel-test:after-worker', 'written'), 20_000);
    expect(await producer.info('server')).toContain(`tcp_port:${replica.port}`);
    expect(await worker.info('server')).toContain(`tcp_port:${replica.port}`);
    expect(await producer.get('sentinel-test:before')).toBe('written');
  });
});
