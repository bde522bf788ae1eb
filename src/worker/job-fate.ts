// What an unfinished intake's job state says about it (pure): a job that still runs or waits
// will end the intake itself; a job in the failed set, finished without recording, or gone
// never will, so the intake must be failed for an operator to look at and replay.
import type { WorkerFailure } from '../errors.js';

/** BullMQ's job states (`Queue.getJobState`), `unknown` for a job that does not exist. */
export type JobState = 'completed' | 'failed' | 'delayed' | 'active' | 'waiting' | 'waiting-children' | 'prioritized' | 'unknown';

export type JobFate =
  | { readonly kind: 'live' }
  | { readonly kind: 'dead'; readonly errorCode: Extract<WorkerFailure, 'JobAbandoned' | 'JobLost'> };

export function jobFate(state: JobState | string): JobFate {
  switch (state) {
    case 'failed':
      return { kind: 'dead', errorCode: 'JobAbandoned' };
    case 'completed':
    case 'unknown':
      return { kind: 'dead', errorCode: 'JobLost' };
    default:
      return { kind: 'live' };
  }
}
