// The notices' share of the worker role: the queue the intake processor hands outcomes to, and
// the BullMQ worker on "notices" that sends them through the relay (NOTICE_SMTP_URL), and the
// sweep for notices their failed job left unfinished.
import { Worker } from 'bullmq';
import type { Config } from '../config.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import { createNoticeProcessor } from '../notices/deliver.js';
import { NoticeLedger } from '../notices/ledger.js';
import { type EndedNotice, sweepAbandonedNotices } from '../notices/notice-sweep.js';
import { createNoticeQueue, NOTICE_QUEUE, type NoticeJobData, type NoticeOutcomes, noticesFor } from '../notices/queue.js';
import { createRelay } from '../notices/relay.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import type { SenderDirectory } from '../senders/directory.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';

export interface NoticePartDeps {
  readonly config: Config;
  readonly connection: RedisClient;
  readonly store: IntakeStore;
  readonly rawStore: RawStore;
  readonly directory: SenderDirectory;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
}

export interface NoticePart {
  readonly notices: NoticeOutcomes;
  /** One sweep for notices whose job failed and left them unfinished (notice-sweep.ts). */
  sweepAbandoned(): Promise<EndedNotice[]>;
  ready(): Promise<void>;
  /** Waits up to `graceMs` for notices being sent, then leaves them to their checkpoints. */
  close(graceMs: number): Promise<void>;
}

/** A few at a time: notices are small, and the relay should not see a burst per worker. */
const NOTICE_CONCURRENCY = 2;

export function startNoticePart(deps: NoticePartDeps): NoticePart {
  const { config, connection, logger } = deps;
  const ledger = new NoticeLedger(connection, config.redisPrefix);
  const queue = createNoticeQueue(connection, config.redisPrefix);
  queue.on('error', logErrorsSparingly(logger, 'notices.queue_error', 'notice queue error'));
  const smtpUrl = config.notices.smtpUrl;
  const relay =
    smtpUrl === undefined ? undefined : createRelay({ url: smtpUrl, heloName: config.smtp.hostname, timeoutMs: config.notices.timeoutMs });
  const processor = createNoticeProcessor({
    store: deps.store,
    rawStore: deps.rawStore,
    ledger,
    directory: deps.directory,
    relay,
    from: config.notices.from,
    hostname: config.smtp.hostname,
    clock: deps.clock,
    logger,
    observer: deps.observer,
  });
  const worker = new Worker<NoticeJobData, string>(NOTICE_QUEUE, processor, {
    connection,
    prefix: config.redisPrefix,
    concurrency: NOTICE_CONCURRENCY,
    lockDuration: config.worker.lockMs,
    stalledInterval: Math.max(1000, Math.floor(config.worker.lockMs / 2)),
  });
  worker.on('error', logErrorsSparingly(logger, 'notices.worker_error', 'notice worker error'));
  // The relay's address without its credentials.
  const relayName = smtpUrl === undefined ? 'none (notices are recorded, not sent)' : new URL(smtpUrl).host;
  return {
    notices: noticesFor({
      queue,
      ledger,
      directory: deps.directory,
      attempts: config.notices.attempts,
      clock: deps.clock,
      logger,
      observer: deps.observer,
    }),
    sweepAbandoned: () => sweepAbandonedNotices({ queue, ledger, store: deps.store, clock: deps.clock, logger, observer: deps.observer }),
    async ready() {
      await Promise.all([worker.waitUntilReady(), queue.waitUntilReady()]);
      logger.info({ event: 'notices.ready', relay: relayName }, 'notices ready');
    },
    async close(graceMs) {
      const timedOut = await Promise.race([
        worker.close().then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
      ]);
      if (timedOut) await worker.close(true);
      await queue.close();
    },
  };
}
