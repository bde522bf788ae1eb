// The BullMQ queue "selftest": a self-test that passed authentication waits here for the
// worker's deep PDF checks and its report (worker/self-test-job.ts). Job data is two keys.
import { type ConnectionOptions, Queue } from 'bullmq';

export const SELF_TEST_QUEUE = 'selftest';

export interface SelfTestJobData {
  readonly id: string;
  /** The message's blob in the raw store, deleted once the report is done (no record points at it). */
  readonly blobKey: string;
}

export function createSelfTestQueue(connection: ConnectionOptions, prefix: string): Queue<SelfTestJobData> {
  return new Queue<SelfTestJobData>(SELF_TEST_QUEUE, { connection, prefix });
}
