// A role's replica acknowledgement (REDIS_REPLICAS_ACK, src/redis/replica-ack.ts) on a connection
// of its own: WAIT blocks the connection it runs on, so never the one the role's writes share.
// `writer` is that one: each session's mark goes on it, after the session's writes.
import { Cluster } from 'ioredis';
import { intakeKeys } from '../intake/keys.js';
import type { Logger } from '../log.js';
import { openRedis, type RedisClient } from '../redis/connections.js';
import { type ReplicaAck, replicaAck } from '../redis/replica-ack.js';
import type { PartContext } from './part-context.js';
import { logConnectionErrors, waitForRedis } from './redis.js';

export interface ReplicaAckPart {
  readonly ack: ReplicaAck;
  readonly connection: RedisClient;
}

/** Undefined when no replica is wanted (REDIS_REPLICAS_ACK=0). */
export async function startReplicaAck(
  ctx: PartContext,
  writer: RedisClient,
  log: Logger,
  errorEvent: string,
): Promise<ReplicaAckPart | undefined> {
  const { config } = ctx;
  if (config.redisReplicasAck === 0) return undefined;
  // A WAIT lasts up to ENQUEUE_TIMEOUT_MS: the command's own bound is a little longer.
  const connection = openRedis(ctx.redisTopology, { kind: 'producer', commandTimeoutMs: config.enqueueTimeoutMs + 1000 });
  logConnectionErrors(connection, log, errorEvent);
  await waitForRedis(connection, ctx.redisTopology, config.redisStartTimeoutMs);
  const keys = intakeKeys(config.redisPrefix);
  // On a cluster the writer's socket that counts is the one to the marks' slot (the prefix's).
  const slot = connection instanceof Cluster ? Number(await connection.cluster('KEYSLOT', keys.replicaTick)) : undefined;
  const ack = replicaAck({
    tick: connection,
    writer,
    tickKey: keys.replicaTick,
    markPrefix: keys.replicaMarks,
    slot,
    wanted: config.redisReplicasAck,
    clock: ctx.clock,
  });
  return { ack, connection };
}
