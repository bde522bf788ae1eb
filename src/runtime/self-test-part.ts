// The worker's self-test queue (worker/self-test-job.ts): one job at a time, beside the intakes.
import { Worker } from 'bullmq';
import { SELF_TEST_QUEUE, type SelfTestJobData } from '../intake/self-test-queue.js';
import { SelfTestReports } from '../intake/self-test-reports.js';
import type { Logger } from '../log.js';
import { createRelay } from '../notices/relay.js';
import type { PdfDocument } from '../pdf/pdf-document.js';
import type { RedisClient } from '../redis/connections.js';
import type { SenderDirectory } from '../senders/directory.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { createSelfTestProcessor } from '../worker/self-test-job.js';
import type { PartContext } from './part-context.js';

export function startSelfTestWorker(
  ctx: PartContext,
  connection: RedisClient,
  directory: SenderDirectory,
  logger: Logger,
  pdfVerdict: (pdf: PdfDocument, allowForms: boolean) => Promise<string>,
): Worker<SelfTestJobData, void> {
  const { config } = ctx;
  const smtpUrl = config.notices.smtpUrl;
  const processor = createSelfTestProcessor({
    reports: new SelfTestReports(connection, config.redisPrefix),
    rawStore: ctx.rawStore,
    directory,
    pdfVerdict,
    relay:
      smtpUrl === undefined
        ? undefined
        : createRelay({ url: smtpUrl, heloName: config.smtp.hostname, timeoutMs: config.notices.timeoutMs }),
    from: config.notices.from,
    clock: ctx.clock,
    logger: logger.child({ part: 'self-test' }),
  });
  const worker = new Worker<SelfTestJobData, void>(SELF_TEST_QUEUE, processor, { connection, prefix: config.redisPrefix, concurrency: 1 });
  worker.on('error', logErrorsSparingly(logger, 'worker.selftest_error', 'self-test worker error'));
  return worker;
}
