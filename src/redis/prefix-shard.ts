// On a Redis Cluster the gateway lives in one slot, the one its prefix's hash tag maps to, so one
// master (and its replicas) carries all of it. Commands about the server rather than a key (INFO,
// CONFIG, WAIT) must go to that master; ioredis sends a keyless command to any node.
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './connections.js';
import type { HostPort } from './topology.js';

/** The master that owns a slot, and its replicas, as CLUSTER SLOTS names them. */
export interface SlotShard {
  readonly slot: number;
  readonly master: HostPort;
  readonly replicas: readonly HostPort[];
}

/** The shard owning `slot` in a CLUSTER SLOTS reply ([start, end, [host, port, id], …replicas] per range), or undefined. */
export function shardOfSlot(reply: unknown, slot: number): SlotShard | undefined {
  if (!Array.isArray(reply)) return undefined;
  for (const range of reply) {
    if (!Array.isArray(range) || range.length < 3) continue;
    const [start, end, ...nodes] = range;
    if (Number(start) > slot || Number(end) < slot) continue;
    const addresses = nodes.map(nodeAddress);
    const [master, ...replicas] = addresses;
    if (master === undefined || addresses.some((a) => a === undefined)) return undefined;
    return { slot, master, replicas: replicas.filter((a): a is HostPort => a !== undefined) };
  }
  return undefined;
}

function nodeAddress(node: unknown): HostPort | undefined {
  if (!Array.isArray(node)) return undefined;
  const [host, port] = node;
  if (typeof host !== 'string' || host === '' || !Number.isInteger(Number(port))) return undefined;
  return { host, port: Number(port) };
}

/** The slot `prefix`'s keys land in, and who owns it now, as the cluster answers. */
export async function prefixShard(cluster: Cluster, prefix: string): Promise<SlotShard> {
  const slot = Number(await cluster.cluster('KEYSLOT', prefix));
  const shard = shardOfSlot(await cluster.cluster('SLOTS'), slot);
  if (shard === undefined) throw new Error(`no master owns slot ${slot} of "${prefix}" (CLUSTER SLOTS)`);
  return shard;
}

/**
 * The connection to the server holding `prefix`'s keys: the client itself on one server; on a
 * cluster, the client's own connection to the master owning the prefix's slot (the one that
 * carries the writes to it, which WAIT counts).
 */
export async function prefixServer(redis: RedisClient, prefix: string): Promise<Redis> {
  if (!(redis instanceof Cluster)) return redis;
  const { master } = await prefixShard(redis, prefix);
  const node = redis.nodes('master').find((n) => n.options.host === master.host && n.options.port === master.port);
  if (node === undefined) throw new Error(`the cluster client has no connection to ${master.host}:${master.port}, which owns "${prefix}"`);
  return node;
}
