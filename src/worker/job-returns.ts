// A job that comes back without spending an attempt (storage trouble, Redis away, its replicas
// behind, a PDF re-check, a Sender API's pause, a shutdown) has no retry budget to end it, so each return
// waits longer than the last, and past a few returns an operator hears of it, again at each
// doubling of the count: a loop is never silent. Holds of a Sender API (its Retry-After, its open
// circuit) and a shutdown have signals of their own and raise none per job. The count is BullMQ's
// own: runs started less attempts spent less stalls.
import type { Job } from 'bullmq';
import { JOB_RETURNS } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { Logger } from '../log.js';
import type { Outcome } from './outcome.js';

const MAX_DELAY_MS = 5 * 60_000;
/** Returns without an attempt a job may make before an operator is alerted (on the one after). */
export const RETURNS_BEFORE_ALERT = 5;

type RunCount = Pick<Job<IntakeJobData>, 'attemptsStarted' | 'attemptsMade' | 'stalledCounter'>;

/** Earlier runs of the job that came back without spending an attempt (a stalled run is not one: it never settled). */
export function earlierReturns(job: RunCount): number {
  return Math.max(0, job.attemptsStarted - job.attemptsMade - job.stalledCounter - 1);
}

/** The wait before a job's next return without an attempt: `baseMs`, doubled with each earlier return, up to `capMs` (5 min). */
export function laterDelay(job: RunCount, baseMs: number, capMs = MAX_DELAY_MS): number {
  return Math.min(baseMs * 2 ** Math.min(earlierReturns(job), 10), capMs);
}

/** A job's own return without an attempt (the ones that wait `retryInMs`), not a hold of its Sender API or a shutdown. */
type OwnReturn = Extract<Outcome, { readonly retryInMs: number }>;

const isOwnReturn = (outcome: Outcome): outcome is OwnReturn => 'retryInMs' in outcome;

/** Returns 6, 12, 24, 48…: each return adds exactly one to the count, so each of these is met once. */
function isAlertingReturn(returns: number): boolean {
  const multiple = returns / (RETURNS_BEFORE_ALERT + 1);
  return Number.isInteger(multiple) && (multiple & (multiple - 1)) === 0;
}

/** Alerts an operator on the job's 6th, 12th, 24th… return without an attempt, unless its Sender API holds it (those have signals of their own). */
export function alertIfLooping(job: RunCount, outcome: Outcome, observer: Pick<IntakeObserver, 'operatorAlert'>, log: Logger): void {
  if (!isOwnReturn(outcome)) return;
  const returns = earlierReturns(job) + 1;
  if (!isAlertingReturn(returns)) return;
  observer.operatorAlert('JobKeepsReturning');
  log.error(
    {
      event: 'intake.keeps_returning',
      errorCode: 'JobKeepsReturning',
      returns,
      outcome: outcome.kind,
      reason: outcome.reason,
    },
    JOB_RETURNS.JobKeepsReturning,
  );
}
