// What durable acceptance needs (intake/accept.ts), built alike for every channel that makes
// intakes: the listener and the portal's uploads share the store, queue, bound, replicas,
// markers and each sender's limits.
import type { Queue } from 'bullmq';
import type { AcceptDeps } from '../intake/accept.js';
import { IntakeMarkers } from '../intake/markers.js';
import { groupedJobAdds, type IntakeJobData } from '../intake/queue.js';
import type { IntakeStore } from '../intake/store.js';
import type { RedisClient } from '../redis/connections.js';
import type { ReplicaAck } from '../redis/replica-ack.js';
import type { SenderDirectory } from '../senders/directory.js';
import type { PartContext } from './part-context.js';
import { senderLimiter } from './sender-limiter.js';

export function acceptDepsFor(
  ctx: PartContext,
  parts: {
    readonly store: IntakeStore;
    readonly queue: Queue<IntakeJobData>;
    readonly redis: RedisClient;
    readonly replicas: ReplicaAck | undefined;
    readonly senders: SenderDirectory;
  },
): AcceptDeps {
  return {
    store: parts.store,
    queue: parts.queue,
    addJob: ctx.config.groupCommit === undefined ? undefined : groupedJobAdds(parts.queue, ctx.config.groupCommit),
    clock: ctx.clock,
    attempts: ctx.config.worker.attempts,
    timeoutMs: ctx.config.enqueueTimeoutMs,
    replicas: parts.replicas,
    markers: new IntakeMarkers(ctx.rawStore),
    limits: senderLimiter(ctx, parts.redis, parts.senders),
  };
}
