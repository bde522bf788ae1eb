// Redis away, changing primaries, or its replicas behind a checkpoint: none of it is the
// intake's fault, so the job comes back without spending an attempt (a failover takes seconds:
// a few returns, not the intake's retries), 2 s later, doubling while it lasts up to 30 s
// (job-returns.ts): a job that came back a few times during a failover does not then wait minutes.
import type { Job } from 'bullmq';
import { ReplicasBehind } from '../errors.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { Logger } from '../log.js';
import { redisTroubleOf } from '../redis/redis-errors.js';
import type { ReplicaAck } from '../redis/replica-ack.js';
import { laterDelay } from './job-returns.js';
import type { Outcome } from './outcome.js';

/** How soon a job put back for Redis's sake first comes back, and the longest it waits. */
export const REDIS_RETRY_MS = 2000;
const REDIS_RETRY_CAP_MS = 30_000;

/** The Outcome for an error that is Redis's trouble, or undefined for any other error. */
export function redisOutcome(err: unknown, job: Job<IntakeJobData>, log: Logger): Outcome | undefined {
  if (err instanceof ReplicasBehind) {
    const retryInMs = laterDelay(job, REDIS_RETRY_MS, REDIS_RETRY_CAP_MS);
    log.warn({ event: 'intake.replicas_behind', retryInMs }, err.message);
    return { kind: 'replicas-behind', retryInMs, reason: err.message };
  }
  const trouble = redisTroubleOf(err);
  if (trouble === undefined) return undefined;
  const retryInMs = laterDelay(job, REDIS_RETRY_MS, REDIS_RETRY_CAP_MS);
  log.warn({ err, event: 'intake.redis_unavailable', trouble, retryInMs }, 'Redis is away: the job comes back');
  const reason = `Redis ${trouble}: ${err instanceof Error ? err.message : String(err)}`;
  return { kind: 'redis-unavailable', retryInMs, reason };
}

/** The worker's replica acknowledgement: the replicas wanted and how long a checkpoint waits for them. */
export interface CheckpointReplicas {
  readonly ack: ReplicaAck;
  readonly waitMs: number;
}

/**
 * Called before a checkpoint's write; what it returns, called after the write, resolves once the
 * checkpoint is on the replicas wanted and throws ReplicasBehind when fewer acknowledge it within
 * `waitMs`. Without replicas wanted it resolves at once.
 */
export function replicatedCheckpoint(replicas: CheckpointReplicas | undefined, clock: () => number): () => () => Promise<void> {
  if (replicas === undefined) return () => () => Promise.resolve();
  return () => {
    const session = replicas.ack.begin();
    return async () => {
      const verdict = await session.acknowledge(clock() + replicas.waitMs);
      if (verdict.kind === 'short') {
        throw new ReplicasBehind(
          verdict.elsewhere
            ? 'the server that waited for the replicas does not hold the checkpoint (a change of primary)'
            : `${verdict.replicas} of ${verdict.wanted} replicas acknowledged the checkpoint within ${replicas.waitMs} ms`,
        );
      }
    };
  };
}
