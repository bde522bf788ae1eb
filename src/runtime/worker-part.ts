// The worker part: the BullMQ worker on queue "intake" around the processor, the Sender API
// client, and the watch for jobs BullMQ abandons, over the role's own connections.
import { Worker, type Job } from 'bullmq';
import { createIntakeQueue, INTAKE_QUEUE, type IntakeJobData } from '../intake/queue.js';
import { createSenderApiClient } from '../sender-api/index.js';
import type { SenderDirectory } from '../senders/directory.js';
import { watchAbandonedJobs } from '../worker/abandoned-jobs.js';
import { backoffDelayMs } from '../worker/backoff.js';
import { letterApiFor } from '../worker/letter-api.js';
import { createProcessor } from '../worker/processor.js';
import { createPdfChecker } from '../pdf/checker-pool.js';
import { checkPdfs } from '../pdf/check-pdfs.js';
import type { Closable } from './lifecycle.js';
import { storeFor, type PartContext } from './part-context.js';
import { waitForRedis, workerConnection } from './redis.js';

export async function startWorkerPart(
  ctx: PartContext,
  directory: SenderDirectory,
  senderApiUrl: string,
): Promise<Closable> {
  const { config } = ctx;
  const logger = ctx.logger.child({ role: 'worker' });
  const connection = workerConnection(ctx.redisUrl);
  connection.on('error', (err) => logger.debug({ err, event: 'worker.redis_error' }, 'redis error'));
  await waitForRedis(connection, ctx.redisUrl, config.redisStartTimeoutMs);
  const client = createSenderApiClient({
    baseUrl: senderApiUrl,
    clock: ctx.clock,
    timeoutMs: config.apiTimeoutMs,
    logger,
    onCall: (e) => ctx.observer.apiCall(e.endpoint, e.status, e.errorCode, e.durationMs / 1000),
  });
  let worker: Worker<IntakeJobData, string> | undefined;
  const store = storeFor(ctx, connection);
  const pdfChecker = config.pdfChecks.mode === 'strict' ? createPdfChecker(config.pdfChecks) : undefined;
  const processor = createProcessor({
    store,
    directory,
    lettersFor: (sender) => letterApiFor(client.as(sender)),
    clock: ctx.clock,
    logger,
    observer: ctx.observer,
    maxPdfBytes: config.maxPdfBytes,
    checkPdfs: (pdfs, sender) => checkPdfs(pdfs, sender, pdfChecker),
    rateLimit: async (ms: number, _job: Job<IntakeJobData>) => {
      await worker?.rateLimit(ms);
      throw Worker.RateLimitError();
    },
  });
  worker = new Worker<IntakeJobData, string>(INTAKE_QUEUE, processor, {
    connection,
    prefix: config.redisPrefix,
    concurrency: config.worker.concurrency,
    lockDuration: config.worker.lockMs,
    stalledInterval: Math.max(1000, Math.floor(config.worker.lockMs / 2)),
    maxStalledCount: 10,
    settings: {
      backoffStrategy: (attemptsMade: number) =>
        backoffDelayMs(attemptsMade, { baseMs: config.worker.backoffBaseMs, capMs: config.worker.backoffCapMs }, Math.random()),
    },
  });
  worker.on('error', (err) => logger.warn({ err, event: 'worker.error' }, 'worker error'));
  const queue = createIntakeQueue(connection, config.redisPrefix);
  const events = watchAbandonedJobs({ store, clock: ctx.clock, logger, observer: ctx.observer }, queue, workerConnection(ctx.redisUrl), config.redisPrefix);
  const running = worker;
  await running.waitUntilReady();
  logger.info({ event: 'worker.ready', concurrency: config.worker.concurrency, api: senderApiUrl }, 'worker ready');
  return {
    name: 'worker',
    async close() {
      // Active jobs get a bounded time to finish; past it they are left for another worker
      // (their locks lapse and the stalled-job check hands them on).
      const graceful = running.close();
      const timedOut = await Promise.race([
        graceful.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), config.worker.closeTimeoutMs).unref()),
      ]);
      if (timedOut) await running.close(true);
      await events.close();
      await pdfChecker?.close();
      await queue.close();
      connection.disconnect();
    },
  };
}
