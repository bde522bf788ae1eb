// The record's fate must not depend on catching an event: BullMQ fails some jobs on its own,
// inside Redis (stalled too often), where no processor and no worker callback sees it, and a
// queue-events reader misses whatever happened while it was not listening. So each worker
// sweeps, at start and then periodically (runtime/worker-part.ts): every intake `queued` or
// `processing` for longer than a bound is checked against its job; one whose job will never end
// it (failed set, finished without recording, gone) is failed, replayable, and raises the
// operator alert.
// The bound keeps the sweep off intakes in motion (a replay moves the record before the job).
import type { Queue } from 'bullmq';
import { WORKER_FAILURES } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { NoticeOutcomes } from '../notices/queue.js';
import { jobFate } from './job-fate.js';

const SWEPT_STATES = ['queued', 'processing'] as const;
const BATCH = 200;
/** A sweep looks at no more than this many intakes per state (the oldest first). */
const MAX_PER_SWEEP = 5000;

export interface ReconcilerDeps {
  readonly store: IntakeStore;
  readonly queue: Queue<IntakeJobData>;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
  /** The sender hears of it, as of any other failure. */
  readonly notices: NoticeOutcomes;
  /** Only intakes that entered their state at least this long ago are checked. */
  readonly ageMs: number;
}

/** One sweep; resolves with the ids it failed. */
export async function reconcileOnce(deps: ReconcilerDeps): Promise<string[]> {
  const failed: string[] = [];
  const before = deps.clock() - deps.ageMs;
  for (const state of SWEPT_STATES) {
    let live = 0;
    while (live < MAX_PER_SWEEP) {
      // Failed ones leave the index; skipping the live ones seen so far pages through the rest.
      const batch = await deps.store.idsInStateSince(state, before, live, BATCH);
      for (const id of batch) {
        if (await failIfDead(deps, state, id)) failed.push(id);
        else live += 1;
      }
      if (batch.length < BATCH) break;
    }
  }
  return failed;
}

async function failIfDead(deps: ReconcilerDeps, state: (typeof SWEPT_STATES)[number], intakeId: string): Promise<boolean> {
  const jobState = await deps.queue.getJobState(intakeId);
  const fate = jobFate(jobState);
  if (fate.kind === 'live') return false;
  const failedReason = jobState === 'failed' ? (await deps.queue.getJob(intakeId))?.failedReason : undefined;
  const reason = `${WORKER_FAILURES[fate.errorCode]} The job is ${jobState}${failedReason === undefined ? '' : `: ${failedReason}`}.`;
  const result = await deps.store.transition(intakeId, [state], 'failed', deps.clock(), { errorCode: fate.errorCode, reason });
  if (!result.ok) return false; // it moved on meanwhile
  deps.logger.error(
    { event: 'intake.failed', intakeId, errorCode: fate.errorCode, jobState, reason },
    'intake failed: its job no longer runs',
  );
  deps.observer.intakeEnded('failed', fate.errorCode, undefined);
  deps.observer.operatorAlert(fate.errorCode);
  await deps.notices.onOutcome(intakeId, 'failed', undefined);
  return true;
}
