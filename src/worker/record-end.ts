// An intake's final transition (submitted, rejected or failed), written only while this run holds
// the intake, then the notice it earns its sender queued. Each returns the run's Outcome: the end
// itself, or what stood in its way (another owner, a record that moved on, a notice not queued).
import type { Job } from 'bullmq';
import type { RejectionReason, WorkerFailure } from '../errors.js';
import type { NoticeState } from '../intake/notice-fields.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeUpdate } from '../intake/record.js';
import type { Logger } from '../log.js';
import { markEnded } from './ended-marker.js';
import { laterDelay } from './job-returns.js';
import type { Outcome } from './outcome.js';
import { errorText, type Run } from './run.js';

/** An end the job completes on (a failure fails it instead). */
export type EndedOutcome = 'submitted' | 'rejected' | 'simulated';

import { noteStatusName } from './status-names.js';

/** How long a job whose outcome is recorded first waits before it tries to queue the notice again. */
const NOTICE_REQUEUE_DELAY_MS = 5000;
/** How long a job that met a storage error it cannot spend an attempt on first waits (a failover takes seconds). */
const STORAGE_RETRY_DELAY_MS = 1000;

export async function submitted(run: Run, letterId: string, letterStatus: string | undefined): Promise<Outcome> {
  noteStatusName(letterStatus, run.log);
  return (await end(run, 'submitted', { ...run.facts, letterId, letterStatus })) ?? { kind: 'submitted', letterId };
}

/** A dry run's end: every check passed; what would have been sent is recorded, nothing reached the Sender API. */
export async function simulated(run: Run, letter: { readonly title: string; readonly description: string }): Promise<Outcome> {
  const pdfs = (run.facts.pdfs ?? []).map((p) => ({ fileName: p.fileName, sha256: p.sha256 }));
  const simulatedLetter = { title: letter.title, description: letter.description, pdfs };
  return (await end(run, 'simulated', { ...run.facts, simulatedLetter })) ?? { kind: 'simulated' };
}

export async function rejected(run: Run, reasonCode: RejectionReason, reason: string): Promise<Outcome> {
  return (await end(run, 'rejected', { ...run.facts, reasonCode, reason })) ?? { kind: 'rejected', reasonCode };
}

export async function failed(
  run: Run,
  failure: { readonly code: WorkerFailure | string; readonly message: string; readonly traceId?: string | undefined },
  needsOperator = false,
): Promise<Outcome> {
  const update = {
    ...run.facts,
    errorCode: failure.code,
    reason: failure.message,
    ...(failure.traceId === undefined ? {} : { traceId: failure.traceId }),
  };
  const message = `failed after ${run.job.attemptsMade + 1} attempt(s): ${failure.code}`;
  return (await end(run, 'failed', update)) ?? { kind: 'failed', reason: needsOperator ? `${message} (an operator must act)` : message };
}

/**
 * The outcome is recorded, its notice is not queued: the job comes back without spending an
 * attempt (its last one included), and its claim then finds the outcome and queues the notice,
 * deciding nothing again. The wait doubles with each such return (5 s up to 5 min): a Redis that
 * keeps refusing is logged at error each time, never given up on in silence.
 */
export function noticeNotQueued(job: Job<IntakeJobData>, log: Logger, outcome: EndedOutcome, cause: unknown): Outcome {
  const retryInMs = laterDelay(job, NOTICE_REQUEUE_DELAY_MS);
  const reason = `the intake is ${outcome}, but its notice could not be queued: ${errorText(cause)}`;
  log.error({ err: cause, event: 'intake.notice_not_queued', outcome, retryInMs }, reason);
  return { kind: 'notice-not-queued', retryInMs, reason };
}

/**
 * A write this run cannot do without failed where spending an attempt could fail the intake
 * wrongly: recording a letter the API has submitted (its last attempt would otherwise end
 * `failed` and tell the sender "not created"), or the claim when Redis refused it (nothing was
 * done yet). The job comes back without spending an attempt, 1 s later, doubling up to 5 min;
 * the next run's claim finds the letter id and the API's status, and records the end. Past a few
 * returns an operator is alerted (job-returns.ts).
 */
export function storageLater(job: Job<IntakeJobData>, log: Logger, what: string, cause: unknown): Outcome {
  const retryInMs = laterDelay(job, STORAGE_RETRY_DELAY_MS);
  const reason = `${what}: ${errorText(cause)}`;
  log.error({ err: cause, event: 'intake.storage_later', retryInMs }, reason);
  return { kind: 'storage-later', retryInMs, reason };
}

/** Another worker holds the intake now: this run stops here, writing nothing. */
export function ownershipLost(run: Run, reason: string): Outcome {
  run.log.warn({ event: 'intake.ownership_lost', reason }, 'another worker holds the intake; this run stops');
  return { kind: 'ownership-lost', reason };
}

/** The final transition and its notice; undefined when both are done, else the outcome that stands instead. */
async function end(run: Run, to: 'submitted' | 'rejected' | 'failed' | 'simulated', update: IntakeUpdate): Promise<Outcome | undefined> {
  const { deps, record, owner } = run;
  // answered with the record as the move left it: the ended marker is written from it
  const result = await deps.store.transitionAndRead(record.intakeId, ['processing'], to, deps.clock(), update, {
    expectedOwner: owner.token,
  });
  if (!result.ok && result.notOwner === true) return ownershipLost(run, `intake ${record.intakeId} is no longer held by this job run`);
  if (!result.ok) return { kind: 'stale-job', reason: `intake ${record.intakeId} is ${result.state ?? 'gone'}, not ${to}` };
  const { letterId, letterStatus, reasonCode, errorCode, traceId } = update;
  const line = { event: `intake.${to}`, letterId, letterStatus, reasonCode, errorCode, traceId };
  if (to === 'failed') run.log.error(line, `intake ${to}`);
  else run.log.info(line, `intake ${to}`);
  const acceptedAt = record.timeline.queued ?? record.receivedAt;
  deps.observer.intakeEnded(to, update.reasonCode ?? update.errorCode ?? 'none', (deps.clock() - acceptedAt) / 1000);
  let notice: NoticeState | undefined;
  try {
    // The claim read the record while this run held it: its earlier runs are those it had.
    notice = await deps.notices.onOutcome(record.intakeId, to, update.senderId ?? record.senderId, record);
  } catch (err) {
    if (to !== 'failed') return noticeNotQueued(run.job, run.log, to, err);
    // A failed intake is the operator's to look at, notice or not; a retry would claim it and run it again.
    run.log.error({ err, event: 'intake.notice_not_queued', outcome: to }, 'the intake is failed, but its notice could not be queued');
    await markEnded(deps, record.intakeId, run.log, result.record === undefined ? undefined : { record: result.record });
    return { kind: 'failed', reason: `intake ${record.intakeId} is failed; its notice could not be queued: ${errorText(err)}` };
  }
  return markEnded(deps, record.intakeId, run.log, result.record === undefined ? undefined : { record: result.record, notice });
}
