// Queues an intake's job again after it failed (replay, or the sender re-delivered the message).
// BullMQ returns an existing job for its id unchanged, so a failed job is removed first; its data
// carries the exactly-once checkpoint (letter id, draft marker) into the new job.
import type { Queue } from 'bullmq';
import { intakeJobOptions, type IntakeJobData } from './queue.js';

const PENDING = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export async function requeueJob(
  queue: Queue<IntakeJobData>,
  fresh: IntakeJobData,
  attempts: number,
  letterId?: string,
): Promise<void> {
  const previous = await queue.getJob(fresh.intakeId);
  // A job still waiting or running (a 451 left the record `received` after the add) is kept.
  const over = previous !== undefined && !PENDING.has(await previous.getState());
  const data: IntakeJobData = {
    ...(over ? previous.data : fresh),
    ...(letterId === undefined ? {} : { letterId }),
  };
  if (over) await previous.remove();
  await queue.add('intake', data, intakeJobOptions(fresh.intakeId, attempts));
}
