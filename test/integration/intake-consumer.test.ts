// The worker's queue consumer, watched (src/runtime/intake-consumer.ts), on real Redis and real
// BullMQ workers. A BullMQ worker that stops fetching is not something a test can bring about on
// demand (it follows races inside a Sentinel failover), so the first worker the consumer makes
// here is one that never fetches (autorun off): what the watch must notice is the same, jobs ready
// and room and none taken.
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { IntakeJobData } from '../../src/intake/queue.js';
import { type IntakeConsumer, type IntakeProcessor, startIntakeConsumer } from '../../src/runtime/intake-consumer.js';
import type { JobResult } from '../../src/worker/outcome.js';
import { capturedLogs } from '../helpers/captured-logs.js';
import { dropPrefix, randomPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { startRedisServer } from '../helpers/redis-server.js';

const WATCH_MS = 1500;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
const prefixes: string[] = [];
const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});
afterAll(async () => {
  for (const prefix of prefixes) await dropPrefix(connection, prefix);
  connection.disconnect();
});

interface Setup {
  readonly queue: Queue<IntakeJobData>;
  readonly consumer: IntakeConsumer;
  readonly made: Worker<IntakeJobData, JobResult>[];
  readonly alerts: string[];
  readonly logs: ReturnType<typeof capturedLogs>;
}

/** A consumer over a fresh queue; `fetching(n)`: whether the n-th BullMQ worker it makes (from 0) fetches. */
async function setUp(
  processor: IntakeProcessor,
  fetching: (n: number) => boolean,
  { redis = connection, lockMs = 30_000 }: { readonly redis?: Redis; readonly lockMs?: number } = {},
): Promise<Setup> {
  const concurrency = 2;
  const prefix = randomPrefix();
  prefixes.push(prefix);
  const queue = new Queue<IntakeJobData>('intake', { connection: redis, prefix });
  const made: Worker<IntakeJobData, JobResult>[] = [];
  const alerts: string[] = [];
  const logs = capturedLogs();
  const consumer = await startIntakeConsumer({
    makeWorker: (process) => {
      const worker = new Worker<IntakeJobData, JobResult>('intake', process, {
        connection: redis,
        prefix,
        concurrency,
        autorun: fetching(made.length),
        lockDuration: lockMs,
      });
      made.push(worker);
      return worker;
    },
    processor,
    queue,
    concurrency,
    watchMs: WATCH_MS,
    logger: logs.logger,
    observer: { operatorAlert: (code) => alerts.push(code) },
  });
  open.push(
    () => consumer.close(1000),
    () => queue.close(),
  );
  return { queue, consumer, made, alerts, logs };
}

/** A processor that notes each job's intake id in `done` and answers it submitted. */
const noting =
  (done: string[]): IntakeProcessor =>
  async (job) => {
    done.push(job.data.intakeId);
    return { outcome: 'submitted', letterId: 'l' };
  };

const data = (n: number): IntakeJobData => ({ intakeId: `i${n}`, from: 'a@example.com', sizeBytes: 1 });

async function until(check: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await delay(50);
  }
}

describe('the intake consumer watched', () => {
  it('a BullMQ worker that takes no job while jobs wait is replaced, and the jobs run', async () => {
    const done: string[] = [];
    const { queue, made, alerts, logs } = await setUp(noting(done), (n) => n > 0);
    for (let n = 0; n < 5; n += 1) await queue.add('intake', data(n), { jobId: `i${n}` });
    await until(() => done.length === 5, 10_000);
    expect(done.sort()).toEqual(['i0', 'i1', 'i2', 'i3', 'i4']);
    expect(made).toHaveLength(2);
    expect(alerts).toEqual(['WorkerNotFetching']);
    const [line] = logs.events('worker.not_fetching');
    expect(line).toMatchObject({ level: 50, errorCode: 'WorkerNotFetching', ready: 5, running: 0 });
  });

  it('jobs due in the delayed set count as ready: only a fetching worker moves them on', async () => {
    const done: string[] = [];
    const { queue, made, alerts } = await setUp(noting(done), (n) => n > 0);
    for (let n = 0; n < 3; n += 1) await queue.add('intake', data(n), { jobId: `i${n}`, delay: 100 });
    await until(() => done.length === 3, 10_000);
    expect(await queue.getJobCountByTypes('wait', 'prioritized')).toBe(0);
    expect(made).toHaveLength(2);
    expect(alerts).toEqual(['WorkerNotFetching']);
  });

  it("the replaced worker's running job finishes and completes under its lock", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const done: string[] = [];
    let slowStarted = false;
    const { queue, made, alerts } = await setUp(
      async (job: Job<IntakeJobData>) => {
        if (job.id === 'slow') {
          slowStarted = true;
          await held;
        }
        done.push(job.data.intakeId);
        return { outcome: 'submitted', letterId: 'l' };
      },
      () => true,
      { lockMs: 4000 },
    );
    await queue.add('intake', { ...data(0), intakeId: 'slow' }, { jobId: 'slow' });
    // The first worker takes the slow job, then its loop stops while the job runs on.
    await until(() => slowStarted, 5000);
    await made[0]?.pause(true);
    for (let n = 1; n <= 3; n += 1) await queue.add('intake', data(n), { jobId: `i${n}` });
    await until(() => done.length === 3, 10_000);
    expect(made).toHaveLength(2);
    expect(alerts).toEqual(['WorkerNotFetching']);
    // Its lock's length more than twice over: only a lock renewed all along lets the job complete.
    await delay(9000);
    release();
    await until(() => done.includes('slow'), 5000);
    for (let n = 0; (await queue.getJobState('slow')) !== 'completed'; n += 1) {
      if (n > 100) throw new Error('the slow job did not complete');
      await delay(50);
    }
  });

  it('a worker whose slots are all busy while jobs wait is left alone', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    const { queue, made, alerts } = await setUp(
      async (job: Job<IntakeJobData>) => {
        started.push(job.data.intakeId);
        await held;
        return { outcome: 'submitted', letterId: 'l' };
      },
      () => true,
    );
    for (let n = 0; n < 5; n += 1) await queue.add('intake', data(n), { jobId: `i${n}` });
    await until(() => started.length === 2, 5000);
    await delay(4 * WATCH_MS);
    expect(await queue.getJobCountByTypes('wait')).toBe(3);
    expect(made).toHaveLength(1);
    expect(alerts).toEqual([]);
    release();
    await until(() => started.length === 5, 5000);
  });

  it('a queue an operator paused is no worker that stopped: its jobs wait, nothing is replaced', async () => {
    const done: string[] = [];
    const { queue, made, alerts } = await setUp(noting(done), () => true);
    await queue.pause();
    for (let n = 0; n < 3; n += 1) await queue.add('intake', data(n), { jobId: `i${n}` });
    await delay(3 * WATCH_MS);
    expect(done).toEqual([]);
    expect(made).toHaveLength(1);
    expect(alerts).toEqual([]);
    await queue.resume();
    await until(() => done.length === 3, 10_000);
  });

  it('an idle worker with nothing to take is left alone', async () => {
    const { made, alerts } = await setUp(
      async () => ({ outcome: 'submitted', letterId: 'l' }),
      () => true,
    );
    await delay(3 * WATCH_MS);
    expect(made).toHaveLength(1);
    expect(alerts).toEqual([]);
  });

  it('a Redis that answers nothing is said at each look, and no worker is replaced for it', async () => {
    const server = await startRedisServer(['--appendonly', 'no']);
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    redis.on('error', () => {});
    open.push(
      () => server.destroy(),
      async () => redis.disconnect(),
    );
    const { made, alerts, logs } = await setUp(
      async () => ({ outcome: 'submitted', letterId: 'l' }),
      () => true,
      { redis },
    );
    server.pause();
    await delay(3.5 * WATCH_MS);
    server.resume();
    const said = logs.events('worker.fetch_watch_error');
    expect(said.length).toBeGreaterThanOrEqual(2);
    expect(said[0]).toMatchObject({ err: { message: `Redis did not answer the look at the queue within ${WATCH_MS / 2} ms` } });
    expect(made).toHaveLength(1);
    expect(alerts).toEqual([]);
  });
});
