// Jobs BullMQ fails on its own, inside Redis (a job that stalled too often: a worker died on it
// again and again), reach no processor and no worker callback; only the queue's event stream
// reports them. Their intakes must still end as recorded, replayable failures.
import { QueueEvents, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { IntakeJobData } from '../intake/queue.js';
import { INTAKE_QUEUE } from '../intake/queue.js';
import type { ProcessorDeps } from './processor.js';
import { ACTIVE_STATES } from './processor.js';

type Deps = Pick<ProcessorDeps, 'store' | 'clock' | 'logger' | 'observer' | 'notices'>;

/** Marks the intake of a job BullMQ failed for good, unless the processor recorded an outcome. */
export async function recordAbandonedJob(
  deps: Deps,
  queue: Queue<IntakeJobData>,
  jobId: string,
  failedReason: string,
): Promise<void> {
  // Only a job in the failed set is over; an attempt BullMQ will retry is not.
  if ((await queue.getJobState(jobId)) !== 'failed') return;
  const update = { errorCode: 'JobAbandoned', reason: `the job failed outside the processor: ${failedReason}` };
  const result = await deps.store.transition(jobId, ACTIVE_STATES.filter((s) => s !== 'failed'), 'failed', deps.clock(), update);
  if (!result.ok) return; // the processor recorded the outcome itself
  deps.logger.error({ event: 'intake.failed', intakeId: jobId, ...update }, 'intake failed');
  deps.observer.intakeEnded('failed', update.errorCode, undefined);
  await deps.notices.onOutcome(jobId, 'failed', undefined);
}

/** Listens to the queue's events (every worker does; the record's state lets one act). */
export function watchAbandonedJobs(deps: Deps, queue: Queue<IntakeJobData>, connection: Redis, prefix: string): QueueEvents {
  const events = new QueueEvents(INTAKE_QUEUE, { connection, prefix });
  events.on('error', (err) => deps.logger.debug({ err, event: 'worker.events_error' }, 'queue events error'));
  events.on('failed', ({ jobId, failedReason }) => {
    void recordAbandonedJob(deps, queue, jobId, failedReason).catch(() => undefined);
  });
  return events;
}
