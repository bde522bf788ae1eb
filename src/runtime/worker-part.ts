// The worker part: the BullMQ worker on queue "intake" around the processor, the Sender API
// client, the sweeps for intakes and notices whose job no longer runs, and the raw store's
// housekeeping (orphans, retention), over the role's own connections.
import { Worker } from 'bullmq';
import { growHeapsAsAServer, useFastPaths } from '../fast-paths/index.js';
import { redisBlobIndex } from '../intake/blob-index.js';
import { IntakeMarkers, markerRetention } from '../intake/markers.js';
import { createIntakeQueue, INTAKE_QUEUE, type IntakeJobData } from '../intake/queue.js';
import { NoticeLedger } from '../notices/ledger.js';
import { checkPdfs } from '../pdf/check-pdfs.js';
import { createPdfChecker } from '../pdf/checker-pool.js';
import { pdfVerdict } from '../pdf/pdf-verdict.js';
import { startHousekeeping } from '../raw-store/housekeeping.js';
import { acceptedBlobCheck } from '../recover/blob-claims.js';
import { openRedis } from '../redis/connections.js';
import type { SenderDirectory } from '../senders/directory.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { noticeLifetimeMs } from '../words/notice-lifetime.js';
import { backoffDelayMs } from '../worker/backoff.js';
import { letterApiFor } from '../worker/letter-api.js';
import type { JobResult } from '../worker/outcome.js';
import { createProcessor } from '../worker/processor.js';
import { reconcileOnce } from '../worker/reconciler.js';
import { CLOSE_STEP_BOUND_MS, stepBound, within } from './bounded-close.js';
import { startIntakeConsumer } from './intake-consumer.js';
import type { Closable } from './lifecycle.js';
import { startNoticePart } from './notice-part.js';
import { type PartContext, storeFor } from './part-context.js';
import { startPeriodic } from './periodic.js';
import { logConnectionErrors, waitForRedis } from './redis.js';
import { startReplicaAck } from './replica-ack-part.js';
import { malwareScannerFor } from './scan-part.js';
import { startSelfTestWorker } from './self-test-part.js';
import { SenderApis } from './sender-apis.js';

export async function startWorkerPart(ctx: PartContext, directory: SenderDirectory, senderApiUrl: string): Promise<Closable> {
  const { config } = ctx;
  useFastPaths(config.fastPaths);
  growHeapsAsAServer();
  const logger = ctx.logger.child({ role: 'worker' });
  const connection = openRedis(ctx.redisTopology, { kind: 'worker' });
  logConnectionErrors(connection, logger, 'worker.redis_error');
  await waitForRedis(connection, ctx.redisTopology, config.redisStartTimeoutMs);
  const replicas = await startReplicaAck(ctx, connection, logger, 'worker.replica_ack_redis_error');
  // One circuit, client and status book per Sender API base URL: its calls alone judge it, and
  // while it is open only the jobs for it wait (settle-job.ts: each in the delayed set).
  const apis = new SenderApis({ config, defaultUrl: senderApiUrl, connection, clock: ctx.clock, logger, observer: ctx.observer });
  apis.at(senderApiUrl); // SENDER_API_URL's client made at start: a bad address stops the role here, naming it
  const store = storeFor(ctx, connection);
  const markers = new IntakeMarkers(ctx.rawStore);
  const notices = startNoticePart({
    config,
    connection,
    store,
    rawStore: ctx.rawStore,
    directory,
    clock: ctx.clock,
    logger: logger.child({ part: 'notices' }),
    observer: ctx.observer,
  });
  const pdfChecker = config.pdfChecks.mode === 'strict' ? createPdfChecker(config.pdfChecks) : undefined;
  // Threads load pdf.js and pdf-lib once (~0.5 s of CPU each). The worker takes jobs only once
  // they are up: its first letters do not wait for them, other workers take the queue meanwhile,
  // and the start-up's CPU is not spent while letters are (docs/performance.md).
  // A thread that fails to start is started again, and reported, when a PDF needs it.
  await pdfChecker
    ?.warm()
    .catch((err: unknown) => logger.warn({ err, event: 'worker.pdf_checker_warm_error' }, 'PDF checker threads did not start'));
  const processor = createProcessor({
    store,
    rawStore: ctx.rawStore,
    directory,
    lettersFor: (sender, apiBaseUrl) => letterApiFor(apis.at(apiBaseUrl).client.as(sender)),
    apiBaseUrlOf: (sender) => apis.baseUrlOf(sender),
    letterStatuses: (apiBaseUrl) => apis.at(apiBaseUrl).statuses,
    replicas: replicas === undefined ? undefined : { ack: replicas.ack, waitMs: config.enqueueTimeoutMs },
    clock: ctx.clock,
    logger,
    observer: ctx.observer,
    maxPdfBytes: config.maxPdfBytes,
    apiLimits: config.apiLimits,
    notices: notices.notices,
    checkPdfs: (pdfs, sender) => checkPdfs(pdfs, sender, pdfChecker),
    apiCircuit: (apiBaseUrl) => apis.circuitIfMade(apiBaseUrl),
    scanForMalware: malwareScannerFor(ctx, config.privacy.clamd),
    markers,
  });
  const queue = createIntakeQueue(connection, config.redisPrefix);
  queue.on('error', logErrorsSparingly(logger, 'worker.queue_error', 'queue error'));
  const consumer = await startIntakeConsumer({
    makeWorker: (process) =>
      new Worker<IntakeJobData, JobResult>(INTAKE_QUEUE, process, {
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
      }),
    processor,
    queue,
    concurrency: config.worker.concurrency,
    watchMs: config.worker.fetchWatchMs,
    logger,
    observer: ctx.observer,
  });
  const selfTests = startSelfTestWorker(ctx, connection, directory, logger, (pdf, allowForms) => pdfVerdict(pdf, allowForms, pdfChecker));
  await notices.ready();
  const unmarked = new Set<string>();
  const notAccepted = new Set<string>();
  const intakeSweep = startPeriodic(
    () =>
      reconcileOnce({
        store,
        queue,
        clock: ctx.clock,
        logger,
        observer: ctx.observer,
        notices: notices.notices,
        ageMs: config.worker.sweepAgeMs,
        attempts: config.worker.attempts,
        markers,
        unmarked,
        notAccepted,
      }),
    config.worker.sweepIntervalMs,
    (err) => logger.error({ err, event: 'worker.sweep_error' }, 'the sweep for unfinished intakes failed'),
  );
  const noticeSweep = startPeriodic(
    () => notices.sweepAbandoned(),
    config.worker.sweepIntervalMs,
    (err) => logger.error({ err, event: 'notices.sweep_error' }, 'the sweep for abandoned notices failed'),
  );
  const housekeeping = startHousekeeping({
    store: ctx.rawStore,
    index: redisBlobIndex(connection, config.redisPrefix),
    clock: ctx.clock,
    logger: logger.child({ part: 'raw-store' }),
    orphanAfterMs: config.rawStore.orphanAfterMs,
    intervalMs: config.rawStore.sweepIntervalMs,
    // An unreferenced blob that `accepted/` names is recovered, never deleted.
    accepted: acceptedBlobCheck({
      store,
      queue,
      rawStore: ctx.rawStore,
      markers,
      clock: ctx.clock,
      attempts: config.worker.attempts,
      logger: logger.child({ part: 'recover' }),
      notices: notices.notices,
      ledger: new NoticeLedger(connection, config.redisPrefix),
      noticeLifetimeMs: noticeLifetimeMs(config.notices),
      observer: ctx.observer,
    }),
    markers: { retentionMs: config.recordRetentionMs, ...markerRetention(markers) },
    alert: (code) => ctx.observer.operatorAlert(code),
  });
  logger.info({ event: 'worker.ready', concurrency: config.worker.concurrency, api: senderApiUrl }, 'worker ready');
  return {
    name: 'worker',
    async close() {
      // With Redis unreachable no job can finish (its last writes need Redis): every wait is short.
      const graceMs = stepBound(connection, config.worker.closeTimeoutMs);
      await consumer.close(graceMs);
      await within(selfTests.close(), graceMs);
      apis.stop();
      await within(Promise.all([intakeSweep.stop(), noticeSweep.stop(), housekeeping.stop()]), stepBound(connection, CLOSE_STEP_BOUND_MS));
      // Last: a closing intake job may still queue a notice. One mid-send is left to its checkpoint.
      await within(notices.close(graceMs), stepBound(connection, graceMs + CLOSE_STEP_BOUND_MS));
      await pdfChecker?.close();
      await within(queue.close(), stepBound(connection, CLOSE_STEP_BOUND_MS));
      connection.disconnect();
      replicas?.connection.disconnect();
    },
  };
}
