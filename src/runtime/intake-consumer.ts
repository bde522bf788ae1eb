// The worker's BullMQ consumer of queue "intake", watched: every WORKER_FETCH_WATCH_MS it looks at
// the queue and at the jobs of its BullMQ worker, and a BullMQ worker that stopped taking jobs
// while they were ready and it had room (worker/fetch-watch.ts) is replaced by a fresh one, logged
// at error (`worker.not_fetching`) with the operator alert `WorkerNotFetching`. The old one is
// closed in the background: its running jobs finish, their locks renewed until they do.
import type { Job, Queue, Worker } from 'bullmq';
import { FETCH_STOPPED } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { Logger } from '../log.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { type FetchLook, stoppedFetching } from '../worker/fetch-watch.js';
import type { JobResult } from '../worker/outcome.js';
import { within } from './bounded-close.js';
import { startPeriodic } from './periodic.js';

export type IntakeProcessor = (job: Job<IntakeJobData>, token?: string, signal?: AbortSignal) => Promise<JobResult>;

export interface IntakeConsumerDeps {
  /** A BullMQ worker on queue "intake" running `processor`, started. */
  readonly makeWorker: (processor: IntakeProcessor) => Worker<IntakeJobData, JobResult>;
  readonly processor: IntakeProcessor;
  readonly queue: Queue<IntakeJobData>;
  readonly concurrency: number;
  readonly watchMs: number;
  readonly logger: Logger;
  readonly observer: Pick<IntakeObserver, 'operatorAlert'>;
}

export interface IntakeConsumer {
  /** Closes the consumer, waiting `graceMs` for its jobs before aborting them (each BullMQ worker it made). */
  close(graceMs: number): Promise<void>;
}

/** A BullMQ worker with the count of the jobs it started and runs. */
interface WorkerWithCounts {
  readonly worker: Worker<IntakeJobData, JobResult>;
  readonly jobs: { started: number; running: number };
}

export async function startIntakeConsumer(deps: IntakeConsumerDeps): Promise<IntakeConsumer> {
  const { logger, queue } = deps;
  const logError = logErrorsSparingly(logger, 'worker.error', 'worker error');
  const make = (): WorkerWithCounts => {
    const jobs = { started: 0, running: 0 };
    const worker = deps.makeWorker(async (job, token, signal) => {
      jobs.started += 1;
      jobs.running += 1;
      try {
        return await deps.processor(job, token, signal);
      } finally {
        jobs.running -= 1;
      }
    });
    worker.on('error', logError);
    return { worker, jobs };
  };
  let current = make();
  await current.worker.waitUntilReady();
  const replaced = new Set<Worker<IntakeJobData, JobResult>>();
  let before: FetchLook | undefined;

  const readyJobs = async (): Promise<number> => {
    const [paused, waiting, due] = await Promise.all([
      queue.isPaused(),
      queue.getJobCountByTypes('wait', 'prioritized'),
      // Due delayed jobs wait for a worker to promote them: a worker that stopped leaves them there.
      queue.getDelayedCount(Date.now() + 1),
    ]);
    // A paused queue (an operator's Pause on the dashboard) keeps its jobs in wait: none is ready.
    return paused ? 0 : waiting + due;
  };

  /** Replaces the current BullMQ worker, which took no job between `previous` and `now`. */
  const replace = (previous: FetchLook, now: FetchLook): void => {
    const sinceMs = Math.round(now.at - previous.at);
    logger.error(
      { event: 'worker.not_fetching', errorCode: 'WorkerNotFetching', ready: now.ready, running: now.running, sinceMs },
      `${FETCH_STOPPED.WorkerNotFetching} ${now.ready} jobs ready, ${Math.round(sinceMs / 1000)} s without a job taken.`,
    );
    deps.observer.operatorAlert('WorkerNotFetching');
    const old = current.worker;
    current = make();
    replaced.add(old);
    void within(old.close(), 2 * deps.watchMs).then(
      (closed) => {
        if (closed) replaced.delete(old);
        else
          logger.warn(
            { event: 'worker.replaced_not_closed' },
            'the replaced queue consumer has not closed: it is closed again at shutdown',
          );
      },
      (err: unknown) => logger.warn({ err, event: 'worker.replaced_close_error' }, 'the replaced queue consumer did not close'),
    );
  };

  let closing = false;
  const look = async (): Promise<void> => {
    const previous = before;
    before = undefined; // a look that fails leaves nothing to compare with
    const counting = readyJobs();
    // A connection whose commands hang would hold every later round too: each look is bounded, and said.
    const boundMs = Math.floor(deps.watchMs / 2);
    if (!(await within(counting, boundMs))) throw new Error(`Redis did not answer the look at the queue within ${boundMs} ms`);
    const ready = await counting;
    if (closing) return; // shutting down: no new consumer
    const now: FetchLook = { at: performance.now(), ready, ...current.jobs };
    // A replaced worker's successor gets two looks of its own: this one is not kept.
    if (previous !== undefined && stoppedFetching(previous, now, deps.concurrency, deps.watchMs / 2)) replace(previous, now);
    else before = now;
  };
  const watch = startPeriodic(look, deps.watchMs, (err) =>
    logger.warn({ err, event: 'worker.fetch_watch_error' }, 'the look at the queue failed'),
  );

  return {
    async close(graceMs) {
      closing = true;
      await within(watch.stop(), graceMs);
      // Active jobs get a bounded time to finish; past it their AbortSignals fire, so an API call
      // in flight ends and the job goes back to the queue for another worker. (BullMQ's
      // close(true) after close() only returns the pending graceful close: it forces nothing.)
      await Promise.all(
        [...replaced, current.worker].map(async (worker) => {
          const graceful = worker.close();
          if (!(await within(graceful, graceMs))) {
            worker.cancelAllJobs('shutting down');
            await within(graceful, graceMs);
          }
        }),
      );
    },
  };
}
