// Queues an intake's job again after it failed (replay, or the sender re-delivered the message).
// BullMQ returns an existing job for its id unchanged, so a finished job is removed first. The
// exactly-once checkpoint (letter id, draft marker) lives on the intake record and carries over.
import type { Queue } from 'bullmq';
import { type IntakeJobData, intakeJobOptions } from './queue.js';

const PENDING = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export async function requeueJob(queue: Queue<IntakeJobData>, data: IntakeJobData, attempts: number): Promise<void> {
  const previous = await queue.getJob(data.intakeId);
  // A job still waiting or running (a 451 left the record `received` after the add) is kept.
  if (previous !== undefined && !PENDING.has(await previous.getState())) await previous.remove();
  await queue.add('intake', data, intakeJobOptions(data.intakeId, attempts));
}
