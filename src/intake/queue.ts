// The BullMQ queue "intake": job data is keys and small facts, never the message.
import { type ConnectionOptions, type JobsOptions, Queue } from 'bullmq';

export const INTAKE_QUEUE = 'intake';

export interface IntakeJobData {
  readonly intakeId: string;
  readonly from: string;
  readonly sizeBytes: number;
}
// The exactly-once checkpoint (letter id, draft marker) lives on the intake record, where only
// the intake's owner can write it (BullMQ's job.updateData is not fenced by the job's lock).

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
