// The one place an intake's Outcome becomes BullMQ's language: a return value completes the job,
// UnrecoverableError fails it for good, a plain throw retries it after the backoff, and a move to
// the delayed set with DelayedError brings it back without spending an attempt. An open API
// circuit, or an API's Retry-After, moves only its own job to the delayed set: the hold is one
// Sender API's, and jobs for other APIs run on (nothing holds the whole queue).
import { DelayedError, UnrecoverableError } from 'bullmq';
import { OwnershipLost } from '../errors.js';
import type { JobResult, Outcome } from './outcome.js';

/** The move of the running job the outcomes need (job.moveToDelayed with its token), and BullMQ's clock. */
export interface JobControl {
  /** Moves the job to the delayed set until this time (ms since the epoch). */
  delayUntil(timestamp: number): Promise<void>;
  /** BullMQ's own clock: a delay is counted from it. */
  now(): number;
}

export async function settleJob(outcome: Outcome, job: JobControl): Promise<JobResult> {
  switch (outcome.kind) {
    case 'submitted':
      return { outcome: 'submitted', letterId: outcome.letterId };
    case 'rejected':
      return { outcome: 'rejected', reasonCode: outcome.reasonCode };
    case 'simulated':
      return { outcome: 'simulated' };
    case 'failed':
    case 'stale-job':
      throw new UnrecoverableError(outcome.reason);
    case 'retry':
      throw outcome.error;
    case 'ownership-lost':
      // BullMQ's own moves of the job fail too: the lock is not ours any more.
      throw new OwnershipLost(outcome.reason);
    case 'notice-not-queued':
    case 'storage-later':
    case 'end-not-marked':
    case 'pdf-recheck-later':
    case 'redis-unavailable':
    case 'replicas-behind':
      await job.delayUntil(job.now() + outcome.retryInMs);
      throw new DelayedError(outcome.reason);
    case 'scanner-unavailable':
      await job.delayUntil(job.now() + outcome.againInMs);
      throw new DelayedError(outcome.reason);
    case 'shutting-down':
      await job.delayUntil(job.now());
      throw new DelayedError(outcome.reason);
    case 'api-outage':
      await job.delayUntil(job.now() + outcome.waitMs);
      throw new DelayedError(`the Sender API is held (its circuit is open, or it asked for a pause): back in ${outcome.waitMs} ms`);
    case 'rate-limited':
      await job.delayUntil(job.now() + outcome.waitMs);
      throw new DelayedError(`the Sender API asked for a pause: back in ${outcome.waitMs} ms`);
  }
}
