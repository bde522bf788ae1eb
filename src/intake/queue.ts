// The BullMQ queue "intake": job data is keys and small facts, never the message.
import { type ConnectionOptions, type JobsOptions, Queue } from 'bullmq';
import { type Answers, type GroupBounds, groupedCalls } from '../redis/grouped-calls.js';

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

/** Adds an intake's job: the Queue's own add, or one of many sharing a round trip. */
export type AddIntakeJob = (data: IntakeJobData, options: JobsOptions) => Promise<unknown>;

/**
 * Jobs added together go in one round trip: BullMQ's addBulk, one pipeline (not a MULTI) of its
 * add scripts, which throws the first failed add's error though the others ran. So after a
 * failure each job is looked up: a caller whose job is there is answered with it, the others get
 * the error (or that of their own lookup). Only new intakes' jobs come here, so a job found under
 * its id is the one this batch added: no caller is told its job is queued unless it is.
 */
export function groupedJobAdds(queue: Queue<IntakeJobData>, bounds: GroupBounds): AddIntakeJob {
  const add = groupedCalls<{ readonly data: IntakeJobData; readonly options: JobsOptions }, unknown>(async (adds) => {
    const [only, ...more] = adds;
    if (only !== undefined && more.length === 0) return [{ ok: true, value: await queue.add(INTAKE_QUEUE, only.data, only.options) }];
    try {
      const jobs = await queue.addBulk(adds.map(({ data, options }) => ({ name: INTAKE_QUEUE, data, opts: options })));
      return jobs.map((job) => ({ ok: true, value: job }));
    } catch (err) {
      return whichWereAdded(queue, adds, err);
    }
  }, bounds);
  return (data, options) => add({ data, options });
}

async function whichWereAdded(
  queue: Queue<IntakeJobData>,
  adds: readonly { readonly options: JobsOptions }[],
  err: unknown,
): Promise<Answers<unknown>> {
  const found = await Promise.allSettled(
    adds.map(({ options }) => (options.jobId === undefined ? undefined : queue.getJob(options.jobId))),
  );
  return found.map((lookup) => {
    if (lookup.status === 'rejected') return { ok: false, error: lookup.reason };
    return lookup.value === undefined ? { ok: false, error: err } : { ok: true, value: lookup.value };
  });
}
