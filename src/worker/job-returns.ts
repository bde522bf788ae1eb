// A job that comes back without spending an attempt (storage trouble, Redis away, its replicas
// behind, a PDF re-check, a rate limit, a shutdown) has no retry budget to end it, so each return
// waits longer than the last, and past a few returns an operator hears of it, once per job: a
// loop is never silent. The count is BullMQ's own: runs started less attempts spent less stalls.
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

/** The wait before a job's next return without an attempt: `baseMs`, doubled with each earlier return, up to 5 min. */
export function laterDelay(job: RunCount, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(earlierReturns(job), 10), MAX_DELAY_MS);
}

/** The Outcomes that bring the job back without spending an attempt. */
type Return = Extract<
  Outcome,
  {
    kind:
      | 'notice-not-queued'
      | 'storage-later'
      | 'end-not-marked'
      | 'pdf-recheck-later'
      | 'redis-unavailable'
      | 'replicas-behind'
      | 'shutting-down'
      | 'rate-limited'
      | 'api-outage';
  }
>;

export function returnsWithoutAttempt(outcome: Outcome): outcome is Return {
  switch (outcome.kind) {
    case 'notice-not-queued':
    case 'storage-later':
    case 'end-not-marked':
    case 'pdf-recheck-later':
    case 'redis-unavailable':
    case 'replicas-behind':
    case 'shutting-down':
    case 'rate-limited':
    case 'api-outage':
      return true;
    case 'submitted':
    case 'rejected':
    case 'failed':
    case 'stale-job':
    case 'retry':
    case 'ownership-lost':
      return false;
  }
}

/**
 * Alerts an operator on the run that makes the job's return without an attempt number
 * RETURNS_BEFORE_ALERT + 1. Each such return adds exactly one to the count, so exactly one run
 * of the job meets it, whichever kind of return the others were.
 */
export function alertIfLooping(job: RunCount, outcome: Outcome, observer: Pick<IntakeObserver, 'operatorAlert'>, log: Logger): void {
  if (!returnsWithoutAttempt(outcome) || earlierReturns(job) !== RETURNS_BEFORE_ALERT) return;
  observer.operatorAlert('JobKeepsReturning');
  const reason = 'reason' in outcome ? outcome.reason : `the whole queue waits ${outcome.waitMs} ms for the Sender API`;
  log.error(
    { event: 'intake.keeps_returning', errorCode: 'JobKeepsReturning', returns: RETURNS_BEFORE_ALERT + 1, outcome: outcome.kind, reason },
    JOB_RETURNS.JobKeepsReturning,
  );
}
