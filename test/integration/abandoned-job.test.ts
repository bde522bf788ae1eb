// A job BullMQ gives up on outside the processor (it stalled too often: a worker died on it
// again and again) still ends its intake as a recorded, replayable failure.
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { createLogger } from '../../src/log.js';
import { silentObserver } from '../../src/intake/observer.js';
import { INTAKE_QUEUE, intakeJobOptions, type IntakeJobData } from '../../src/intake/queue.js';
import { IntakeStore } from '../../src/intake/store.js';
import { recordAbandonedJob, watchAbandonedJobs } from '../../src/worker/abandoned-jobs.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const redis = connectTestRedis();
const prefix = randomPrefix();
const store = new IntakeStore(redis, prefix, { rawMs: 1000, recordMs: 1000 });
const queue = new Queue<IntakeJobData>(INTAKE_QUEUE, { connection: redis, prefix });
/** The notices each recorded outcome asked for: (intake id, outcome). */
const noticesAsked: (readonly [string, string])[] = [];
const notices = { onOutcome: async (intakeId: string, kind: string) => { noticesAsked.push([intakeId, kind]); } };
const deps = { store, clock: Date.now, logger: createLogger({ level: 'silent' }), observer: silentObserver, notices };

afterAll(async () => {
  await queue.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

async function intakeIn(state: 'processing' | 'rejected', id: string) {
  await store.create({ intakeId: id, receivedAt: 1, envelopeFrom: '', envelopeTo: [], clientIp: '', helo: '', from: 'a@b.example', subject: 's', messageId: '', sizeBytes: 1, auth: {} }, { headers: '', body: { bytes: Buffer.from('raw') } }, 1);
  await store.transition(id, ['received'], 'processing', 2);
  if (state === 'rejected') await store.transition(id, ['processing'], 'rejected', 3, { reasonCode: 'NoPdfAttachment' });
  return queue.add('intake', { intakeId: id, from: 'a@b.example', sizeBytes: 1 }, intakeJobOptions(id, 1));
}

/** Moves a waiting job to the failed set, as BullMQ does when it gives up on it. */
async function failForGood(job: Awaited<ReturnType<typeof intakeIn>>, reason: string) {
  const worker = new Worker(INTAKE_QUEUE, async () => { throw new UnrecoverableError(reason); }, { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix });
  for (let i = 0; i < 100 && (await job.getState()) !== 'failed'; i += 1) await new Promise((r) => setTimeout(r, 20));
  await worker.close();
}

describe('a job abandoned by BullMQ', () => {
  it('marks an unfinished intake failed with the reason, keeping its message for replay', async () => {
    const job = await intakeIn('processing', 'inabandoned000000000000001');
    await failForGood(job, 'job stalled more than allowable limit');
    await recordAbandonedJob(deps, queue, job.id ?? '', 'job stalled more than allowable limit');
    const record = await store.get('inabandoned000000000000001');
    expect(record).toMatchObject({ state: 'failed', errorCode: 'JobAbandoned' });
    expect(record?.reason).toContain('stalled more than allowable limit');
    expect(await redis.pttl(store.keys.raw('inabandoned000000000000001'))).toBe(-1);
    expect(noticesAsked).toContainEqual(['inabandoned000000000000001', 'failed']);
  });

  it('is noticed from the queue events when BullMQ fails it for stalling, and its intake ends failed', async () => {
    const id = 'inabandoned000000000000004';
    await intakeIn('processing', id);
    const events = watchAbandonedJobs(deps, queue, redis.duplicate({ maxRetriesPerRequest: null }), prefix);
    await events.waitUntilReady();
    // A worker takes the job and dies with it (closed by force: the lock is left to lapse) ...
    const dying = new Worker(INTAKE_QUEUE, () => new Promise(() => {}), { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix, lockDuration: 1000, stalledInterval: 300 });
    for (let i = 0; i < 100 && (await queue.getJobState(id)) !== 'active'; i += 1) await new Promise((r) => setTimeout(r, 20));
    await dying.close(true);
    await redis.del(`${prefix}:${INTAKE_QUEUE}:${id}:lock`); // as if its process had died: no one renews the lock
    await redis.del(`${prefix}:${INTAKE_QUEUE}:stalled-check`); // earlier workers' check throttle
    // ... and the next worker's stalled-job check gives up on it at once.
    const strict = new Worker(INTAKE_QUEUE, async () => 'never', { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix, maxStalledCount: 0, stalledInterval: 300, lockDuration: 1000 });
    for (let i = 0; i < 200 && (await store.get(id))?.state !== 'failed'; i += 1) await new Promise((r) => setTimeout(r, 25));
    const jobState = await queue.getJobState(id);
    await strict.close();
    await events.close();
    expect(jobState).toBe('failed');
    expect(await store.get(id)).toMatchObject({ state: 'failed', errorCode: 'JobAbandoned' });
  });

  it('ignores a failed attempt that BullMQ will retry', async () => {
    const job = await intakeIn('processing', 'inabandoned000000000000003');
    await recordAbandonedJob(deps, queue, job.id ?? '', '503 ServiceUnavailable');
    expect((await store.get('inabandoned000000000000003'))?.state).toBe('processing');
  });

  it('leaves an outcome the processor recorded alone', async () => {
    const job = await intakeIn('rejected', 'inabandoned000000000000002');
    await failForGood(job, 'rejected: NoPdfAttachment');
    await recordAbandonedJob(deps, queue, job.id ?? '', 'rejected: NoPdfAttachment');
    expect(await store.get('inabandoned000000000000002')).toMatchObject({ state: 'rejected', reasonCode: 'NoPdfAttachment' });
    expect(noticesAsked.filter(([id]) => id === 'inabandoned000000000000002')).toEqual([]);
  });
});
