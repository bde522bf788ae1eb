// What an unfinished intake's job state says about it (pure): a job that still runs or waits
// will end the intake itself; a job in the failed set, finished without recording, or gone
// never will, so the intake must be failed for an operator to look at and replay. One exception:
// a `queued` intake whose job is gone and that no attempt ever touched (no draft marker, no letter
// id) lost its job to a Redis failover, not to the worker: it is queued again.
import type { WorkerFailure } from '../errors.js';

/** BullMQ's job states (`Queue.getJobState`), `unknown` for a job that does not exist. */
export type JobState = 'completed' | 'failed' | 'delayed' | 'active' | 'waiting' | 'waiting-children' | 'prioritized' | 'unknown';

export type JobFate =
  | { readonly kind: 'live' }
  /** The job is gone before any attempt began work on the letter: queue it again. */
  | { readonly kind: 'requeue' }
  | { readonly kind: 'dead'; readonly errorCode: Extract<WorkerFailure, 'JobAbandoned' | 'JobLost'> };

/** What the sweep knows of the record beside the job's state. */
export interface SweptRecord {
  readonly state: 'queued' | 'processing';
  readonly draftRequestedAt: number | undefined;
  readonly letterId: string | undefined;
}

export function jobFate(state: JobState | string, record?: SweptRecord): JobFate {
  switch (state) {
    case 'failed':
      return { kind: 'dead', errorCode: 'JobAbandoned' };
    case 'unknown':
      if (record?.state === 'queued' && record.draftRequestedAt === undefined && record.letterId === undefined) return { kind: 'requeue' };
      return { kind: 'dead', errorCode: 'JobLost' };
    case 'completed':
      return { kind: 'dead', errorCode: 'JobLost' };
    default:
      return { kind: 'live' };
  }
}
