// Replay: a `failed` intake goes back to the queue; its record keeps the exactly-once checkpoint
// (the letter id, the draft marker), so a replay can never create a second letter.
import type { Queue } from 'bullmq';
import type { IntakeMarkers } from './markers.js';
import type { IntakeJobData } from './queue.js';
import { requeueJob } from './requeue.js';
import type { IntakeStore } from './store.js';

/** How long a replay waits for the job that failed the intake to be moved out of `active` by BullMQ. */
const FINISHING_JOB_WAIT_MS = 2000;

export type ReplayResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface ReplayDeps {
  readonly store: IntakeStore;
  readonly queue: Queue<IntakeJobData>;
  readonly clock: () => number;
  readonly attempts: number;
  /** The raw store's markers: a replay clears the intake's `failed` end there (docs/design.md §13). */
  readonly markers?: IntakeMarkers | undefined;
}

export async function replayIntake(deps: ReplayDeps, intakeId: string): Promise<ReplayResult> {
  const record = await deps.store.get(intakeId);
  if (record === undefined) return { ok: false, reason: `no intake ${intakeId}` };
  if (record.state !== 'failed') {
    return { ok: false, reason: `intake ${intakeId} is ${record.state}; only failed intakes can be replayed` };
  }
  // The record first: a job that fails again at once must find it `queued`, not be overtaken.
  const moved = await deps.store.transition(intakeId, ['failed'], 'queued', deps.clock());
  if (!moved.ok) return { ok: false, reason: `intake ${intakeId} is ${moved.state ?? 'gone'}; only failed intakes can be replayed` };
  try {
    // Before the job: a run that ends again writes its own end, and recover must not find this one.
    await deps.markers?.clearEnded(intakeId);
    await requeueJob(deps.queue, { intakeId, from: record.from, sizeBytes: record.sizeBytes }, deps.attempts, FINISHING_JOB_WAIT_MS);
  } catch (err) {
    await deps.store.transition(intakeId, ['queued'], 'failed', deps.clock());
    throw err;
  }
  return { ok: true };
}
