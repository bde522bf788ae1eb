// Jobs made to fail for good, as BullMQ fails them: by a processor that gives up, or by BullMQ
// itself when a worker's process dies holding the job.
import { type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A worker takes the job and never finishes it, its lock is dropped as if nobody renewed it, and
 * the next worker's stalled-job check (maxStalledCount 0) moves the job to the failed set, where
 * no processor and no worker callback of ours sees it happen.
 */
export async function abandonByStalling(redis: Redis, queue: Queue, prefix: string, jobId: string): Promise<void> {
  const name = queue.name;
  const dying = new Worker(name, () => new Promise(() => {}), {
    connection: redis.duplicate({ maxRetriesPerRequest: null }),
    prefix,
    lockDuration: 1000,
    stalledInterval: 300,
  });
  for (let i = 0; i < 100 && (await queue.getJobState(jobId)) !== 'active'; i += 1) await sleep(20);
  await dying.close(true);
  await redis.del(`${prefix}:${name}:${jobId}:lock`); // as if its process had died: no one renews the lock
  await redis.del(`${prefix}:${name}:stalled-check`);
  const strict = new Worker(name, async () => 'never', {
    connection: redis.duplicate({ maxRetriesPerRequest: null }),
    prefix,
    maxStalledCount: 0,
    stalledInterval: 300,
    lockDuration: 1000,
  });
  for (let i = 0; i < 200 && (await queue.getJobState(jobId)) !== 'failed'; i += 1) await sleep(25);
  await strict.close();
}

/** A processor gives up on the waiting job (UnrecoverableError), as the worker does with a failure that retrying cannot mend. */
export async function failForGood(
  redis: Redis,
  queue: Queue,
  prefix: string,
  jobId: string,
  reason = 'the API refused the credentials',
): Promise<void> {
  const worker = new Worker(
    queue.name,
    async () => {
      throw new UnrecoverableError(reason);
    },
    { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix },
  );
  for (let i = 0; i < 200 && (await queue.getJobState(jobId)) !== 'failed'; i += 1) await sleep(20);
  await worker.close();
}
