// The building blocks each role is made of: the listener part and the worker part, each with
// its own Redis connections, each closable. Composition roots (roles.ts, start.ts) pick parts.
import { Worker, type Job } from 'bullmq';
import { loadZoneResolver } from '../auth/zone-resolver.js';
import { cacheDkimKeyLookups } from '../auth/dkim-key-cache.js';
import { createLiveResolver, type DnsResolver } from '../auth/resolver.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { acceptIntake } from '../intake/accept.js';
import { redisSpool } from '../intake/raw-spool.js';
import type { IntakeObserver } from '../intake/observer.js';
import { createIntakeQueue, INTAKE_QUEUE, type IntakeJobData } from '../intake/queue.js';
import { IntakeStore } from '../intake/store.js';
import { createSenderApiClient } from '../sender-api/index.js';
import type { SenderDirectory } from '../senders/directory.js';
import { createAuthenticator } from '../smtp/authenticator.js';
import { startListener } from '../smtp/server.js';
import { backoffDelayMs } from '../worker/backoff.js';
import { letterApiFor } from '../worker/letter-api.js';
import { watchAbandonedJobs } from '../worker/abandoned-jobs.js';
import { createProcessor } from '../worker/processor.js';
import type { Closable } from './lifecycle.js';
import { producerConnection, waitForRedis, workerConnection } from './redis.js';

export interface PartContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly observer: IntakeObserver;
  readonly redisUrl: string;
}

/** A message past this is appended to Redis in batches of this size while it arrives. */
const SPOOL_BATCH_BYTES = 1024 * 1024;
/** A spool left behind by a listener that died mid-DATA is gone after this. */
const SPOOL_TTL_MS = 3600_000;

export function storeFor(ctx: PartContext, redis: ConstructorParameters<typeof IntakeStore>[0]): IntakeStore {
  return new IntakeStore(redis, ctx.config.redisPrefix, {
    rawMs: ctx.config.retentionMs,
    recordMs: ctx.config.recordRetentionMs,
  });
}

export function resolverFor(config: Config): DnsResolver {
  const resolver = config.dns.zoneFile === undefined
    ? createLiveResolver({ timeoutMs: config.dns.timeoutMs, tries: config.dns.tries })
    : loadZoneResolver(config.dns.zoneFile);
  return cacheDkimKeyLookups(resolver);
}

export async function startSmtpPart(ctx: PartContext): Promise<Closable & { readonly port: number }> {
  const { config } = ctx;
  const log = ctx.logger.child({ role: 'smtp' });
  const redis = producerConnection(ctx.redisUrl);
  // During an outage ioredis reports every reconnect; clients hear 451 4.3.0 meanwhile.
  redis.on('error', (err) => log.debug({ err, event: 'smtp.redis_error' }, 'redis error'));
  await waitForRedis(redis, ctx.redisUrl, config.redisStartTimeoutMs);
  const queue = createIntakeQueue(redis, config.redisPrefix);
  queue.on('error', (err) => log.debug({ err, event: 'smtp.queue_error' }, 'queue error'));
  await queue.waitUntilReady();
  const store = storeFor(ctx, redis);
  const acceptDeps = { store, queue, clock: ctx.clock, attempts: config.worker.attempts, timeoutMs: config.enqueueTimeoutMs };
  const listener = await startListener(
    { ...config.smtp, inboundAddresses: config.inboundAddresses, maxMessageBytes: config.maxMessageBytes },
    {
      authenticate: createAuthenticator(resolverFor(config)),
      spool: redisSpool(redis, store.keys, { batchBytes: SPOOL_BATCH_BYTES, ttlMs: SPOOL_TTL_MS }),
      accept: async (intake, message) => {
        const started = performance.now();
        const accepted = await acceptIntake(acceptDeps, intake, message);
        ctx.observer.stageDuration('store', (performance.now() - started) / 1000);
        return accepted;
      },
      clock: ctx.clock,
      logger: log,
      observer: ctx.observer,
    },
  );
  return {
    name: 'smtp',
    port: listener.port,
    async close() {
      await listener.close();
      await queue.close();
      redis.disconnect();
    },
  };
}

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
  const processor = createProcessor({
    store,
    directory,
    lettersFor: (sender) => letterApiFor(client.as(sender)),
    clock: ctx.clock,
    logger,
    observer: ctx.observer,
    maxPdfBytes: config.maxPdfBytes,
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
      await queue.close();
      connection.disconnect();
    },
  };
}
