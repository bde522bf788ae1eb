import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { clusterOptions, connectionOptions, reconnectOnError } from '../../src/redis/connections.js';
import { type ClusterTopology, describeTopology, hashTagOf, parseHostPorts, type SentinelTopology } from '../../src/redis/topology.js';

const SENTINELS = { REDIS_SENTINELS: '10.0.0.1:26379, 10.0.0.2:26380,sentinel-c', REDIS_SENTINEL_MASTER: 'intake' };
const CLUSTER = { REDIS_CLUSTER_NODES: 'node-a:7000,node-b' };

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('the configuration was accepted');
}

describe('the Redis topology in the configuration', () => {
  it('is none with no Redis variable set (start embeds its own), and waits for no replica', () => {
    const config = loadConfig({});
    expect(config.redisTopology).toBeUndefined();
    expect(config.redisReplicasAck).toBe(0);
  });

  it('is one server from REDIS_URL', () => {
    expect(loadConfig({ REDIS_URL: 'redis://:secret@redis.internal:6380/2' }).redisTopology).toEqual({
      kind: 'standalone',
      url: 'redis://:secret@redis.internal:6380/2',
      tls: undefined,
    });
  });

  it('trusts REDIS_TLS_CA_FILE for a rediss:// URL only', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://redis.internal:6380', REDIS_TLS_CA_FILE: '/etc/ca.pem' }).redisTopology).toEqual({
      kind: 'standalone',
      url: 'rediss://redis.internal:6380',
      tls: { caFile: '/etc/ca.pem' },
    });
    expect(refusal({ REDIS_URL: 'redis://redis.internal:6380', REDIS_TLS_CA_FILE: '/etc/ca.pem' })).toContain(
      'REDIS_TLS_CA_FILE: only read with a rediss:// REDIS_URL',
    );
  });

  it('is the primary the Sentinels name, with the default Sentinel port where an entry gives none', () => {
    expect(loadConfig(SENTINELS).redisTopology).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'sentinel-c', port: 26379 },
      ],
      masterName: 'intake',
      username: undefined,
      password: undefined,
      sentinelUsername: undefined,
      sentinelPassword: undefined,
      tls: undefined,
      sentinelTls: undefined,
    });
  });

  it('carries the credentials and TLS settings of the primary and of the Sentinels apart', () => {
    const topology = loadConfig({
      ...SENTINELS,
      REDIS_USERNAME: 'intake',
      REDIS_PASSWORD: 'data-secret',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_SENTINEL_TLS: 'true',
      REDIS_TLS_CA_FILE: '/etc/ca.pem',
    }).redisTopology;
    expect(topology).toMatchObject({
      username: 'intake',
      password: 'data-secret',
      sentinelUsername: undefined,
      sentinelPassword: 'sentinel-secret',
      tls: undefined,
      sentinelTls: { caFile: '/etc/ca.pem' },
    });
  });

  it('reads IPv6 Sentinels in brackets', () => {
    expect(parseHostPorts('[::1]:26379,[fd00::2]', 26379)).toEqual([
      { host: '::1', port: 26379 },
      { host: 'fd00::2', port: 26379 },
    ]);
  });

  it.each([
    [{ REDIS_URL: 'redis://a:6379', ...SENTINELS }, 'REDIS_URL, REDIS_SENTINELS: set one of them'],
    [{ REDIS_SENTINELS: '10.0.0.1:26379' }, 'REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS'],
    [{ ...SENTINELS, REDIS_SENTINELS: '10.0.0.1:notaport' }, 'REDIS_SENTINELS: "10.0.0.1:notaport" is not host:port'],
    [{ ...SENTINELS, REDIS_SENTINELS: '10.0.0.1:70000' }, 'REDIS_SENTINELS: "10.0.0.1:70000" is not host:port'],
    [{ ...SENTINELS, REDIS_SENTINELS: ' , ' }, 'REDIS_SENTINELS: expected host:port entries'],
    [{ REDIS_URL: 'redis://a:6379', REDIS_PASSWORD: 'x' }, 'REDIS_PASSWORD: only read with REDIS_SENTINELS'],
    [{ REDIS_SENTINEL_MASTER: 'intake' }, 'REDIS_SENTINEL_MASTER: only read with REDIS_SENTINELS'],
    [{ REDIS_TLS: 'true' }, 'REDIS_TLS: only read with REDIS_SENTINELS'],
    [{ ...SENTINELS, REDIS_TLS_CA_FILE: '/etc/ca.pem' }, 'REDIS_TLS_CA_FILE: only read with REDIS_TLS or REDIS_SENTINEL_TLS'],
    [
      { REDIS_TLS_CA_FILE: '/etc/ca.pem' },
      'REDIS_TLS_CA_FILE: only read with a rediss:// REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES',
    ],
    [{ ...CLUSTER, REDIS_URL: 'redis://a:6379' }, 'REDIS_URL, REDIS_CLUSTER_NODES: set one of them'],
    [{ ...CLUSTER, ...SENTINELS }, 'REDIS_SENTINELS, REDIS_CLUSTER_NODES: set one of them'],
    [{ ...CLUSTER, REDIS_SENTINEL_PASSWORD: 'x' }, 'REDIS_SENTINEL_PASSWORD: only read with REDIS_SENTINELS'],
    [{ ...CLUSTER, REDIS_CLUSTER_NODES: 'node-a:port' }, 'REDIS_CLUSTER_NODES: "node-a:port" is not host:port'],
    [{ ...CLUSTER, REDIS_TLS_CA_FILE: '/etc/ca.pem' }, 'REDIS_TLS_CA_FILE: only read with REDIS_TLS'],
    [
      { ...CLUSTER, REDIS_PREFIX: 'letter-intake' },
      'REDIS_PREFIX: "letter-intake" has no hash tag; with REDIS_CLUSTER_NODES it must have one, e.g. "{letter-intake}"',
    ],
    [{ ...CLUSTER, REDIS_PREFIX: '{}letter-intake' }, 'REDIS_PREFIX: "{}letter-intake" has no hash tag'],
    [{ ...CLUSTER, REDIS_PREFIX: 'letter-{intake' }, 'REDIS_PREFIX: "letter-{intake" has no hash tag'],
    [{ REDIS_REPLICAS_ACK: '1' }, 'REDIS_REPLICAS_ACK: the embedded redis-server has no replicas'],
    [{ REDIS_URL: 'redis://a:6379', REDIS_REPLICAS_ACK: '-1' }, 'REDIS_REPLICAS_ACK: expected a whole number, at least 0'],
  ])('refuses %o, naming the variable', (env, message) => {
    expect(refusal(env)).toContain(message);
  });

  it("is a Redis Cluster from REDIS_CLUSTER_NODES, port 6379 where an entry gives none, with the nodes' credentials and TLS", () => {
    expect(loadConfig(CLUSTER).redisTopology).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'node-a', port: 7000 },
        { host: 'node-b', port: 6379 },
      ],
      username: undefined,
      password: undefined,
      tls: undefined,
    });
    expect(
      loadConfig({ ...CLUSTER, REDIS_USERNAME: 'intake', REDIS_PASSWORD: 'secret', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: '/etc/ca.pem' })
        .redisTopology,
    ).toMatchObject({ username: 'intake', password: 'secret', tls: { caFile: '/etc/ca.pem' } });
  });

  it('takes a cluster prefix whose hash tag is anywhere in it', () => {
    expect(loadConfig(CLUSTER).redisPrefix).toBe('{letter-intake}');
    expect(loadConfig({ ...CLUSTER, REDIS_PREFIX: 'mail-{eu}' }).redisPrefix).toBe('mail-{eu}');
    expect(hashTagOf('mail-{eu}-x{y}')).toBe('eu');
    expect(hashTagOf('{}{eu}')).toBeUndefined(); // Redis hashes the whole key when the first braces are empty
    expect(loadConfig({ REDIS_URL: 'redis://a:6379', REDIS_PREFIX: 'letter-intake' }).redisPrefix).toBe('letter-intake');
  });

  it('takes REDIS_REPLICAS_ACK with a Redis that can have replicas', () => {
    expect(loadConfig({ ...CLUSTER, REDIS_REPLICAS_ACK: '1' }).redisReplicasAck).toBe(1);
    expect(loadConfig({ ...SENTINELS, REDIS_REPLICAS_ACK: '1' }).redisReplicasAck).toBe(1);
    expect(loadConfig({ REDIS_URL: 'redis://a:6379', REDIS_REPLICAS_ACK: '2' }).redisReplicasAck).toBe(2);
  });

  it('describes where Redis is without its passwords', () => {
    expect(describeTopology({ kind: 'standalone', url: 'redis://user:secret@redis.internal:6379', tls: undefined })).toBe(
      'redis://***@redis.internal:6379',
    );
    const sentinel = loadConfig({ ...SENTINELS, REDIS_PASSWORD: 'secret' }).redisTopology;
    expect(sentinel === undefined ? '' : describeTopology(sentinel)).toBe(
      'primary "intake" through Sentinels 10.0.0.1:26379,10.0.0.2:26380,sentinel-c:26379',
    );
    const cluster = loadConfig({ ...CLUSTER, REDIS_PASSWORD: 'secret' }).redisTopology;
    expect(cluster === undefined ? '' : describeTopology(cluster)).toBe('Redis Cluster through node-a:7000,node-b:6379');
  });
});

describe('the connection options', () => {
  const sentinel: SentinelTopology = {
    kind: 'sentinel',
    sentinels: [{ host: '127.0.0.1', port: 26379 }],
    masterName: 'intake',
    username: undefined,
    password: 'data-secret',
    sentinelUsername: undefined,
    sentinelPassword: 'sentinel-secret',
    tls: { caFile: undefined },
    sentinelTls: undefined,
  };

  it('ask the Sentinels for the primary, with each side its own password, and TLS to the primary only', () => {
    const options = connectionOptions(sentinel, { kind: 'worker' });
    expect(options).toMatchObject({
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
      name: 'intake',
      role: 'master',
      password: 'data-secret',
      sentinelPassword: 'sentinel-secret',
      enableTLSForSentinelMode: true,
      tls: {},
      failoverDetector: true,
      maxRetriesPerRequest: null,
    });
    expect(options).not.toHaveProperty('sentinelTLS');
    expect(options).not.toHaveProperty('username');
  });

  it('give a producer no offline queue and a command bound, and a probe no retries at all', () => {
    expect(connectionOptions(sentinel, { kind: 'producer', commandTimeoutMs: 750 })).toMatchObject({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 750,
    });
    const probe = connectionOptions(sentinel, { kind: 'probe', connectTimeoutMs: 1000 });
    expect(probe.retryStrategy?.(1)).toBeNull();
    expect(probe.sentinelRetryStrategy?.(1)).toBeNull();
    expect(probe.failoverDetector).toBe(false);
  });

  const cluster: ClusterTopology = {
    kind: 'cluster',
    nodes: [{ host: 'node-a', port: 7000 }],
    username: 'intake',
    password: 'data-secret',
    tls: undefined,
  };

  it('give every cluster node the credentials, and a cluster worker no limit on retries per command (BullMQ requires it)', () => {
    const options = clusterOptions(cluster, { kind: 'worker' });
    expect(options.redisOptions).toMatchObject({
      username: 'intake',
      password: 'data-secret',
      maxRetriesPerRequest: null,
      reconnectOnError,
    });
    expect(options.redisOptions).not.toHaveProperty('tls');
    expect(options).not.toHaveProperty('dnsLookup');
    expect(options.clusterRetryStrategy?.(50)).toBe(2000);
  });

  it('give a cluster producer no offline queue and a command bound, a cluster probe no reconnection', () => {
    const producer = clusterOptions(cluster, { kind: 'producer', commandTimeoutMs: 750 });
    expect(producer).toMatchObject({ enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 750 } });
    const probe = clusterOptions(cluster, { kind: 'probe', connectTimeoutMs: 1000 });
    expect(probe).toMatchObject({ lazyConnect: true, redisOptions: { connectTimeout: 1000 } });
    expect(probe.clusterRetryStrategy?.(1)).toBeNull();
  });

  it('connect to TLS cluster nodes by the names they announce (their certificates name hosts)', () => {
    const options = clusterOptions({ ...cluster, tls: { caFile: undefined } }, { kind: 'worker' });
    expect(options.redisOptions.tls).toEqual({});
    const looked: unknown[] = [];
    options.dnsLookup?.('node-a.cache.example', (err, address) => looked.push(err, address));
    expect(looked).toEqual([null, 'node-a.cache.example']);
  });

  it('reconnect and resend on READONLY (a demoted primary), not on other errors', () => {
    expect(reconnectOnError(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnectOnError(new Error('OOM command not allowed when used memory > maxmemory'))).toBe(false);
    expect(connectionOptions({ kind: 'standalone', url: 'redis://a:6379', tls: undefined }, { kind: 'worker' }).reconnectOnError).toBe(
      reconnectOnError,
    );
  });
});
