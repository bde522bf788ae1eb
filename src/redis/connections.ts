// The one place that opens Redis connections: every role, every BullMQ Queue and Worker (whose
// blocking connections are duplicates of these), the notice queue, the ops server, the operator
// commands and doctor. What a connection does when Redis is away depends on its purpose; where
// Redis is depends on the topology (topology.ts).
//
// Failovers are followed without a restart: a Sentinel topology asks the Sentinels for the
// primary on every reconnect (and drops its connection when they announce a new one), and any
// connection that hears READONLY (it reached a demoted primary) reconnects and sends the command
// again, which the replica refused, so it never ran. A cluster topology gets ioredis's Cluster
// client, which follows MOVED and ASK (a slot moved, or moving, to another master) by itself.
import { readFileSync } from 'node:fs';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import {
  type ClusterTopology,
  type HostPort,
  hostPortText,
  type RedisTls,
  type RedisTopology,
  type SentinelTopology,
  unknownTopology,
} from './topology.js';

/** A connection as every part of the gateway holds it: one server's, or a cluster's. */
export type RedisClient = Redis | Cluster;

export type ConnectionPurpose =
  /** Answers a client now or never: no offline queue, one try, every command bounded (the listener, commands). */
  | { readonly kind: 'producer'; readonly commandTimeoutMs: number }
  /** Waits for Redis to come back (BullMQ workers and queue readers require this). */
  | { readonly kind: 'worker' }
  /** One look, no retries (doctor): a dead Redis is one answer, not a loop. */
  | { readonly kind: 'probe'; readonly connectTimeoutMs: number };

const CONNECT_TIMEOUT_MS = 5000;

/** Where the cluster's nodes are, for logs: never a password. */
export function clusterNodesText(topology: ClusterTopology): string {
  return topology.nodes.map(hostPortText).join(',');
}

/** ioredis's options without `replyMapping`, which its constructor types more narrowly (RESP3 replies as ioredis maps them by default). */
export type ConnectionOptions = Omit<RedisOptions, 'replyMapping'>;

/** Opens a connection of `purpose` to `topology`. */
export function openRedis(topology: RedisTopology, purpose: ConnectionPurpose): RedisClient {
  switch (topology.kind) {
    case 'standalone':
      return new Redis(topology.url, connectionOptions(topology, purpose));
    case 'sentinel':
      return new Redis(connectionOptions(topology, purpose));
    case 'cluster':
      return new Cluster(
        topology.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions(topology, purpose),
      );
    default:
      return unknownTopology(topology);
  }
}

/** ioredis's Cluster options, the nodes' options always given and without `replyMapping` (as ConnectionOptions). */
export type ClusterConnectionOptions = Omit<ClusterOptions, 'redisOptions'> & {
  readonly redisOptions: Omit<NonNullable<ClusterOptions['redisOptions']>, 'replyMapping'>;
};

/**
 * The Cluster client's options for `purpose`: the purpose's per-node options (time-outs, retries
 * per command) go to every node's connection; the cluster itself reconnects as the purpose says.
 */
export function clusterOptions(topology: ClusterTopology, purpose: ConnectionPurpose): ClusterConnectionOptions {
  const { enableOfflineQueue, retryStrategy: purposeRetry, lazyConnect, ...perNode } = purposeOptions(purpose);
  return {
    redisOptions: {
      ...perNode,
      ...(topology.username === undefined ? {} : { username: topology.username }),
      ...(topology.password === undefined ? {} : { password: topology.password }),
      ...(topology.tls === undefined ? {} : { tls: tlsOptions(topology.tls) }),
      reconnectOnError,
    },
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    clusterRetryStrategy: purposeRetry ?? retryStrategy,
    // Behind TLS the nodes' certificates name hosts, not addresses: connect by the names given
    // (ioredis's advice for managed clusters) instead of resolving them once at start.
    ...(topology.tls === undefined ? {} : { dnsLookup: (address, callback) => callback(null, address) }),
    // A slot being moved answers TRYAGAIN to multi-key commands for a moment: wait, then resend.
    retryDelayOnTryAgain: 100,
    retryDelayOnClusterDown: 200,
  };
}

/** One Sentinel itself (doctor asks each which primary it names): its credentials and TLS, one look, no retries. */
export function openSentinelProbe(topology: SentinelTopology, address: HostPort, timeoutMs: number): Redis {
  return new Redis({
    host: address.host,
    port: address.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    ...(topology.sentinelUsername === undefined ? {} : { username: topology.sentinelUsername }),
    ...(topology.sentinelPassword === undefined ? {} : { password: topology.sentinelPassword }),
    ...(topology.sentinelTls === undefined ? {} : { tls: tlsOptions(topology.sentinelTls) }),
  });
}

/** The ioredis options for `purpose` on `topology` (the URL, if any, is passed beside them). Pure but for reading CA files. */
export function connectionOptions(topology: RedisTopology, purpose: ConnectionPurpose): ConnectionOptions {
  return { ...purposeOptions(purpose), ...topologyOptions(topology, purpose), reconnectOnError };
}

function purposeOptions(purpose: ConnectionPurpose): ConnectionOptions {
  switch (purpose.kind) {
    case 'producer':
      return {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        retryStrategy,
        connectTimeout: CONNECT_TIMEOUT_MS,
        commandTimeout: purpose.commandTimeoutMs,
      };
    case 'worker':
      return { maxRetriesPerRequest: null, retryStrategy, connectTimeout: CONNECT_TIMEOUT_MS };
    case 'probe':
      return { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: purpose.connectTimeoutMs, retryStrategy: () => null };
  }
}

function topologyOptions(topology: RedisTopology, purpose: ConnectionPurpose): ConnectionOptions {
  switch (topology.kind) {
    case 'standalone':
      return topology.tls === undefined ? {} : { tls: tlsOptions(topology.tls) };
    case 'sentinel':
      return {
        sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
        name: topology.masterName,
        role: 'master',
        ...(topology.username === undefined ? {} : { username: topology.username }),
        ...(topology.password === undefined ? {} : { password: topology.password }),
        ...(topology.sentinelUsername === undefined ? {} : { sentinelUsername: topology.sentinelUsername }),
        ...(topology.sentinelPassword === undefined ? {} : { sentinelPassword: topology.sentinelPassword }),
        ...(topology.tls === undefined ? {} : { tls: tlsOptions(topology.tls), enableTLSForSentinelMode: true }),
        ...(topology.sentinelTls === undefined ? {} : { sentinelTLS: tlsOptions(topology.sentinelTls) }),
        // The Sentinels' +switch-master drops the connection at once instead of at its next error.
        failoverDetector: purpose.kind !== 'probe',
        sentinelCommandTimeout: CONNECT_TIMEOUT_MS,
        // All Sentinels unreachable: a probe says so; the others keep asking, like retryStrategy.
        sentinelRetryStrategy: purpose.kind === 'probe' ? () => null : retryStrategy,
      };
    case 'cluster':
      throw new Error('a cluster topology has no single-connection options (clusterOptions)');
    default:
      return unknownTopology(topology);
  }
}

/** A demoted primary answers writes with READONLY: reconnect (to the primary the Sentinels name) and resend. */
export function reconnectOnError(err: Error): 2 | false {
  return err.message.startsWith('READONLY') ? 2 : false;
}

/** Reconnect for ever, at most every 2 s: Redis coming back must need nobody's help. */
export function retryStrategy(times: number): number {
  return Math.min(times * 200, 2000);
}

function tlsOptions(tls: RedisTls): { ca?: Buffer } {
  return tls.caFile === undefined ? {} : { ca: readFileSync(tls.caFile) };
}
