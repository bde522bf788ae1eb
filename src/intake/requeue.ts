// Queues an intake's job again after it failed (replay, or the sender re-delivered the message).
// BullMQ returns an existing job for its id unchanged, so a finished job is removed first. The
// exactly-once checkpoint (letter id, draft marker) lives on the intake record and carries over.
import type { Queue } from 'bullmq';
import { type IntakeJobData, intakeJobOptions } from './queue.js';

const PENDING = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);
const POLL_MS = 25;

/**
 * `finishingWaitMs`: how long to wait for an active job to leave `active` first. A replay gives
 * it: the job that has just failed the intake is active until BullMQ moves it to the failed set,
 * and kept, it would leave the replayed intake `queued` with no job to run it.
 */
export async function requeueJob(queue: Queue<IntakeJobData>, data: IntakeJobData, attempts: number, finishingWaitMs = 0): Promise<void> {
  const previous = await queue.getJob(data.intakeId);
  let state = await previous?.getState();
  for (const until = Date.now() + finishingWaitMs; state === 'active' && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    state = await previous?.getState();
  }
  // A job still waiting or running (a 451 left the record `received` after the add) is kept.
  if (previous !== undefined && state !== undefined && !PENDING.has(state)) await previous.remove();
  await queue.add('intake', data, intakeJobOptions(data.intakeId, attempts));
}
