// Real Redis for tests: the machine's server (or TEST_REDIS_URL), a fresh random prefix per test.
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { IntakeStore } from '../../src/intake/store.js';
import type { RedisClient } from '../../src/redis/connections.js';
import type { StandaloneTopology } from '../../src/redis/topology.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One Redis server by URL, as REDIS_URL names it (the machine's by default). */
export function standaloneTopology(url = TEST_REDIS_URL): StandaloneTopology {
  return { kind: 'standalone', url, tls: undefined };
}

export function randomPrefix(): string {
  return `{test-${randomBytes(6).toString('hex')}}`;
}

export function connectTestRedis(url = TEST_REDIS_URL): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // tests that stop Redis on purpose see the failures in their own calls
  return redis;
}

/** Deletes every key under a prefix (cleanup after a test); on a cluster, on every master. */
export async function dropPrefix(redis: RedisClient, prefix: string): Promise<void> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      // One hash-tagged prefix: the keys share a slot, so one DEL through the client reaches them.
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
}

/** A file's fresh prefixes, each with an intake store on `redis`; `dropAll` (in afterAll) deletes their keys. */
export function freshStores(redis: Redis) {
  const used: string[] = [];
  return {
    next() {
      const prefix = randomPrefix();
      used.push(prefix);
      return { prefix, store: new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 }) };
    },
    async dropAll() {
      for (const prefix of used) await dropPrefix(redis, prefix);
    },
  };
}

/** A file's Redis connection and its fresh prefixes: `prefix()` names a new one; afterAll deletes their keys and disconnects. */
export function redisPerFile(url = TEST_REDIS_URL): { readonly redis: Redis; readonly prefix: () => string } {
  const redis = connectTestRedis(url);
  const used: string[] = [];
  afterAll(async () => {
    for (const prefix of used) await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  return {
    redis,
    prefix() {
      const prefix = randomPrefix();
      used.push(prefix);
      return prefix;
    },
  };
}
