// The BullMQ queue "intake": job data is keys and small facts, never the message.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

export const INTAKE_QUEUE = 'intake';

export interface IntakeJobData {
  readonly intakeId: string;
  readonly from: string;
  readonly sizeBytes: number;
  /** Set by the worker once the Sender API created the draft: the exactly-once checkpoint. */
  readonly letterId?: string;
  /** Set just before the draft is requested, so a retry knows a draft may exist. */
  readonly draftRequestedAt?: number;
}

export function intakeJobOptions(intakeId: string, attempts: number): JobsOptions {
  return {
    jobId: intakeId,
    attempts,
    backoff: { type: 'jittered' },
    // Finished jobs stay visible on the dashboard for a while; the intake record is the history.
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}

export function createIntakeQueue(connection: ConnectionOptions, prefix: string): Queue<IntakeJobData> {
  return new Queue<IntakeJobData>(INTAKE_QUEUE, { connection, prefix });
}
