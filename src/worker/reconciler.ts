// The record's fate must not depend on catching an event: BullMQ fails some jobs on its own,
// inside Redis (stalled too often), where no processor and no worker callback sees it, and a
// queue-events reader misses whatever happened while it was not listening. So each worker
// sweeps, at start and then periodically (runtime/worker-part.ts): every intake `queued` or
// `processing` for longer than a bound is checked against its job; one whose job will never end
// it (failed set, finished without recording, gone) is failed, replayable, and raises the
// operator alert. A `queued` intake whose job is gone before any attempt touched it (a failover
// kept the record but not the job) is queued again instead (job-fate.ts). A `received` intake
// with no job is queued when `accepted/` says it may have been answered 250 (`recover` created
// it and Redis refused its job); without the marker the client was told 451, and its MTA's retry
// queues it (docs/design.md §13: a message answered only 451 never becomes a letter on its own).
// Each intake is swept alone: one that fails is logged with its id and the sweep goes on.
// A failed intake's `ended/` marker is written as the processor writes it, so a Redis loss never
// brings it back queued (docs/design.md §13); a marker that cannot be written is logged, alerted,
// and tried again on each later sweep of this worker.
// The bound keeps the sweep off intakes in motion (a replay moves the record before the job).
// The same sweep finds `failed` intakes of the last day whose notice entry is missing (queueing
// it failed when the intake was failed, here or in the processor) and queues it: the state
// change and the notice's job cannot be one write, so the second is made good later, never lost.
import type { Queue } from 'bullmq';
import { WORKER_FAILURES } from '../errors.js';
import type { IntakeMarkers } from '../intake/markers.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import { requeueJob } from '../intake/requeue.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { NoticeOutcomes } from '../notices/queue.js';
import { endedMarkerOf } from './ended-marker.js';
import { jobFate } from './job-fate.js';

const SWEPT_STATES = ['received', 'queued', 'processing'] as const;
const BATCH = 200;
/** A sweep looks at no more than this many intakes per state (the oldest first). */
const MAX_PER_SWEEP = 5000;
/** Failed intakes this recent are checked for a notice entry (a notice later than this is news to nobody). */
export const OWED_NOTICE_LOOKBACK_MS = 24 * 3600_000;

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
  /** Attempts of a job queued again (WORKER_ATTEMPTS). */
  readonly attempts: number;
  /**
   * Where a failed intake's `ended/` is written, and `accepted/` read for a `received` intake with
   * no job; absent: no raw-store markers (such an intake is left to its MTA's retry).
   */
  readonly markers?: (Pick<IntakeMarkers, 'putEnded'> & Partial<Pick<IntakeMarkers, 'accepted'>>) | undefined;
  /** Failed intakes whose `ended/` could not be written, kept across sweeps: each sweep tries them again. */
  readonly unmarked?: Set<string> | undefined;
  /**
   * `received` intakes with no job found without `accepted/` (answered 451), kept across sweeps so
   * the raw store is read once for each: a marker never appears for one that stays `received`.
   */
  readonly notAccepted?: Set<string> | undefined;
}

/** Ids remembered in `notAccepted`; past this many it starts afresh (one more read each, never a leak). */
const MAX_NOT_ACCEPTED = 10_000;

/** One sweep; resolves with the ids it failed. */
export async function reconcileOnce(deps: ReconcilerDeps): Promise<string[]> {
  // Markers earlier sweeps could not write come first: the raw store had its pause since.
  for (const id of [...(deps.unmarked ?? [])]) await markFailed(deps, id);
  const failed: string[] = [];
  const before = deps.clock() - deps.ageMs;
  for (const state of SWEPT_STATES) {
    let live = 0;
    while (live < MAX_PER_SWEEP) {
      // Failed ones leave the index; skipping the live ones seen so far pages through the rest.
      const batch = await deps.store.idsInStateSince(state, before, live, BATCH);
      for (const id of batch) {
        const moved = await sweptAlone(deps, id, () => (state === 'received' ? queueIfAnswered(deps, id) : failIfDead(deps, state, id)));
        if (!moved) live += 1;
        else if (state !== 'received') failed.push(id);
      }
      if (batch.length < BATCH) break;
    }
  }
  await queueOwedNotices(deps);
  return failed;
}

/** Failed intakes (past the bound, within the look-back) whose failure notice has no entry: queued now. */
async function queueOwedNotices(deps: ReconcilerDeps): Promise<void> {
  const now = deps.clock();
  for (let offset = 0; offset < MAX_PER_SWEEP; offset += BATCH) {
    const batch = await deps.store.idsEnteredStateBetween('failed', now - OWED_NOTICE_LOOKBACK_MS, now - deps.ageMs, offset, BATCH);
    for (const id of batch) {
      const record = await deps.store.get(id);
      if (record?.state !== 'failed' || record.notices?.failed !== undefined) continue;
      deps.logger.warn({ event: 'intake.notice_owed', intakeId: id }, 'a failed intake has no notice entry: queueing its notice');
      await deps.notices.onOutcome(id, 'failed', record.senderId);
    }
    if (batch.length < BATCH) break;
  }
}

/** One intake's sweep; a failure is logged with its id (the next sweep tries it again) and counts as not moved. */
async function sweptAlone(deps: ReconcilerDeps, intakeId: string, sweep: () => Promise<boolean>): Promise<boolean> {
  try {
    return await sweep();
  } catch (err) {
    deps.logger.error({ err, event: 'worker.sweep_item_failed', intakeId }, 'one intake could not be swept; the sweep goes on');
    return false;
  }
}

/** A `received` intake whose job is gone and whose `accepted/` exists: queued, as the listener would have. */
async function queueIfAnswered(deps: ReconcilerDeps, intakeId: string): Promise<boolean> {
  const { markers, notAccepted } = deps;
  if (markers?.accepted === undefined || notAccepted?.has(intakeId) === true) return false;
  if ((await deps.queue.getJobState(intakeId)) !== 'unknown') return false;
  if ((await markers.accepted(intakeId)) === undefined) {
    // Answered 451: the MTA's retry queues it (the listener adds the job before it writes accepted/).
    if (notAccepted !== undefined && notAccepted.size >= MAX_NOT_ACCEPTED) notAccepted.clear();
    notAccepted?.add(intakeId);
    return false;
  }
  const record = await deps.store.get(intakeId);
  if (record?.state !== 'received') return false;
  await requeueJob(deps.queue, { intakeId, from: record.from, sizeBytes: record.sizeBytes }, deps.attempts);
  const moved = await deps.store.transition(intakeId, ['received'], 'queued', deps.clock());
  deps.logger.warn(
    { event: 'intake.requeued', intakeId, jobState: 'unknown', from: 'received' },
    'a received intake answered 250 had no job: queued',
  );
  return moved.ok;
}

async function failIfDead(deps: ReconcilerDeps, state: 'queued' | 'processing', intakeId: string): Promise<boolean> {
  const jobState = await deps.queue.getJobState(intakeId);
  const record = jobState === 'unknown' ? await deps.store.get(intakeId) : undefined;
  const fate = jobFate(
    jobState,
    record === undefined ? undefined : { state, draftRequestedAt: record.draftRequestedAt, letterId: record.letterId },
  );
  if (fate.kind === 'live') return false;
  if (fate.kind === 'requeue') {
    if (record !== undefined) await requeueJob(deps.queue, { intakeId, from: record.from, sizeBytes: record.sizeBytes }, deps.attempts);
    deps.logger.warn({ event: 'intake.requeued', intakeId, jobState }, 'a queued intake had lost its job before any attempt: queued again');
    return false;
  }
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
  try {
    await deps.notices.onOutcome(intakeId, 'failed', undefined);
  } catch (err) {
    // The intake stays failed; a later sweep finds it without a notice entry (queueOwedNotices).
    deps.logger.error({ err, event: 'intake.notice_not_queued', intakeId }, 'the intake is failed, but its notice could not be queued');
  }
  await markFailed(deps, intakeId);
  return true;
}

/** Writes `ended/` failed from the record as Redis holds it; a failure is an operator's alert, as in the processor. */
async function markFailed(deps: ReconcilerDeps, intakeId: string): Promise<void> {
  const { markers } = deps;
  if (markers === undefined) return;
  try {
    const record = await deps.store.get(intakeId);
    if (record?.state === 'failed') await markers.putEnded(endedMarkerOf({ ...record, state: 'failed' }, deps.clock()));
    deps.unmarked?.delete(intakeId); // written, or a replay reopened it meanwhile
  } catch (err) {
    deps.logger.error(
      { err, event: 'intake.end_not_marked', intakeId, outcome: 'failed' },
      'the intake is failed, but its ended marker could not be written',
    );
    if (deps.unmarked?.has(intakeId) === true) return; // alerted once; each sweep tries again
    deps.unmarked?.add(intakeId);
    // Without its marker a Redis loss would bring the failed intake back queued: an operator must know.
    deps.observer.operatorAlert('EndNotMarked');
  }
}
