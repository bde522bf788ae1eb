// The worker's BullMQ consumer of queue "intake", watched: every WORKER_FETCH_WATCH_MS it looks at
// the queue and at its own jobs, and a BullMQ worker that stopped taking jobs while they wait and
// it has room (worker/fetch-watch.ts) is replaced by a fresh one, logged at error
// (`worker.not_fetching`) with the operator alert `WorkerNotFetching`. The old one is closed in
// the background: its running jobs finish, and their locks are renewed until they do.
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
  /** The limiter's `max`: the queue counts as held only by a rate limit at it (worker.rateLimit's). */
  readonly limiterMax: number;
  readonly watchMs: number;
  readonly logger: Logger;
  readonly observer: Pick<IntakeObserver, 'operatorAlert'>;
}

export interface IntakeConsumer {
  /** Holds the whole queue this long (a 429). */
  rateLimit(ms: number): Promise<void>;
  /** Closes the worker, waiting `graceMs` for its jobs before aborting them (each BullMQ worker it made). */
  close(graceMs: number): Promise<void>;
}

export async function startIntakeConsumer(deps: IntakeConsumerDeps): Promise<IntakeConsumer> {
  const { logger } = deps;
  let started = 0;
  let running = 0;
  const counted: IntakeProcessor = async (job, token, signal) => {
    started += 1;
    running += 1;
    try {
      return await deps.processor(job, token, signal);
    } finally {
      running -= 1;
    }
  };
  const logError = logErrorsSparingly(logger, 'worker.error', 'worker error');
  const make = () => {
    const made = deps.makeWorker(counted);
    made.on('error', logError);
    return made;
  };
  let current = make();
  await current.waitUntilReady();
  const replaced = new Set<Worker<IntakeJobData, JobResult>>();
  let before: FetchLook | undefined;
  const watch = startPeriodic(
    async () => {
      const previous = before;
      before = undefined; // a look that fails leaves nothing to compare with
      const asked = Promise.all([deps.queue.getJobCountByTypes('wait', 'prioritized'), deps.queue.getRateLimitTtl(deps.limiterMax)]);
      // A connection whose commands hang would hold every later round too: each look is bounded, and said.
      if (!(await within(asked, deps.watchMs))) throw new Error(`Redis did not answer the look at the queue within ${deps.watchMs} ms`);
      const [ready, heldMs] = await asked;
      const now: FetchLook = { at: Date.now(), ready, started, running, heldMs };
      before = now;
      if (previous === undefined || !stoppedFetching(previous, now, deps.concurrency, deps.watchMs)) return;
      logger.error(
        { event: 'worker.not_fetching', errorCode: 'WorkerNotFetching', ready, running, sinceMs: now.at - previous.at },
        `${FETCH_STOPPED.WorkerNotFetching} ${ready} jobs ready, ${Math.round((now.at - previous.at) / 1000)} s without a job taken.`,
      );
      deps.observer.operatorAlert('WorkerNotFetching');
      const old = current;
      current = make();
      replaced.add(old);
      old.close().then(
        () => replaced.delete(old),
        (err: unknown) => logger.warn({ err, event: 'worker.replaced_close_error' }, 'the replaced queue consumer did not close'),
      );
    },
    deps.watchMs,
    (err) => logger.warn({ err, event: 'worker.fetch_watch_error' }, 'the look at the queue failed'),
  );
  return {
    rateLimit: (ms) => current.rateLimit(ms),
    async close(graceMs) {
      await watch.stop();
      // Active jobs get a bounded time to finish; past it their AbortSignals fire, so an API call
      // in flight ends and the job goes back to the queue for another worker. (BullMQ's
      // close(true) after close() only returns the pending graceful close: it forces nothing.)
      await Promise.all(
        [...replaced, current].map(async (worker) => {
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
