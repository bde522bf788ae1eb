// The listener part: the SMTP server, its authentication (DNS from the zone file or live, DKIM
// keys cached), durable acceptance (the message into the raw store, the record and the job into
// Redis), each over the role's own connections.

import { cacheDkimKeyLookups } from '../auth/dkim-key-cache.js';
import { loadZoneResolver } from '../auth/zone-resolver.js';
import { withTimeout } from '../bounded.js';
import type { Config } from '../config.js';
import { growHeapsAsAServer, useFastPaths } from '../fast-paths/index.js';
import { acceptIntake } from '../intake/accept.js';
import { authRefusals } from '../intake/auth-refusals.js';
import { createIntakeQueue } from '../intake/queue.js';
import { rawStoreSpool } from '../intake/raw-spool.js';
import { RefusalCounts } from '../intake/refusal-counts.js';
import { createSelfTestQueue, SELF_TEST_QUEUE } from '../intake/self-test-queue.js';
import { SelfTestReports } from '../intake/self-test-reports.js';
import { SESSION_REFUSAL_BUDGET, type SessionRefusal, SessionRefusals } from '../intake/session-refusals.js';
import type { Logger } from '../log.js';
import { startMimeWalk } from '../mime/mime-walk.js';
import { createLiveResolver, type DnsResolver } from '../net/resolver.js';
import { checkRedis } from '../ops/dependency-checks.js';
import type { DependencyCheck } from '../ops/readiness.js';
import { openRedis } from '../redis/connections.js';
import { groupedScripts } from '../redis/grouped-scripts.js';
import { addressesInUse } from '../senders/addresses-in-use.js';
import { liveSenderDirectory, reloadableListenerDirectory } from '../senders/live-directory.js';
import { createAuthenticator } from '../smtp/authenticator.js';
import { judgeRecipients } from '../smtp/sender-addresses.js';
import { type Listener, startListener } from '../smtp/server.js';
import { reloadableTls } from '../smtp/tls-material.js';
import type { Reloadable } from '../support/reloadable.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { acceptDepsFor } from './accept-deps.js';
import { CLOSE_STEP_BOUND_MS, stepBound, within } from './bounded-close.js';
import { required } from './context.js';
import type { Closable } from './lifecycle.js';
import { type PartContext, storeFor } from './part-context.js';
import { logConnectionErrors, waitForRedis } from './redis.js';
import { startReplicaAck } from './replica-ack-part.js';

export function resolverFor(config: Config): DnsResolver {
  const resolver =
    config.dns.zoneFile === undefined
      ? createLiveResolver({ timeoutMs: config.dns.timeoutMs, tries: config.dns.tries })
      : loadZoneResolver(config.dns.zoneFile);
  return cacheDkimKeyLookups(resolver);
}

export interface SmtpPart extends Closable {
  readonly port: number;
  /** The listener's own Redis connection answers (a listener process's part of the gateway's /readyz). */
  readiness(): Promise<DependencyCheck>;
}

export async function startSmtpPart(ctx: PartContext): Promise<SmtpPart> {
  const { config } = ctx;
  useFastPaths(config.fastPaths);
  growHeapsAsAServer();
  const log = ctx.logger.child({ role: 'smtp' });
  const sendersFile = required(config.sendersFile, 'SENDERS_FILE', 'to know the registered senders');
  // Both reload on SIGHUP and when their files change (reloads.ts); a listener not yet up takes the new pair at its start.
  const senders = liveSenderDirectory(
    register(ctx, 'smtp-senders', reloadableListenerDirectory(sendersFile, ctx.clock, addressesInUse(config))),
  );
  let listening: Listener | undefined;
  const tls =
    config.smtp.tls === undefined
      ? undefined
      : register(
          ctx,
          'tls',
          reloadableTls(config.smtp.tls, ctx.clock, (pair) => listening?.updateTls(pair)),
        );
  const redis = openRedis(ctx.redisTopology, { kind: 'producer', commandTimeoutMs: config.enqueueTimeoutMs });
  // During an outage ioredis reports every reconnect; clients hear 451 4.3.0 meanwhile.
  logConnectionErrors(redis, log, 'smtp.redis_error');
  await waitForRedis(redis, ctx.redisTopology, config.redisStartTimeoutMs);
  const queue = createIntakeQueue(redis, config.redisPrefix);
  queue.on('error', logErrorsSparingly(log, 'smtp.queue_error', 'queue error'));
  await queue.waitUntilReady();
  // Sessions that finish together send their records and `queued` transitions in shared round trips.
  const store = storeFor(ctx, config.groupCommit === undefined ? redis : groupedScripts(redis, config.groupCommit));
  const refusals = new SessionRefusals(redis, config.redisPrefix, config.recordRetentionMs, {
    ...SESSION_REFUSAL_BUDGET,
    maxBytes: config.refusedMaxBytes,
  });
  const authRefused = authRefusals(redis, config.redisPrefix, config.refusedMaxBytes);
  const counts = new RefusalCounts(redis, config.redisPrefix, config.recordRetentionMs, config.refusalCountKeys);
  const replicas = await startReplicaAck(ctx, redis, log, 'smtp.replica_ack_redis_error');
  const selfTestQueue = config.selfTestAddress === undefined ? undefined : createSelfTestQueue(redis, config.redisPrefix);
  selfTestQueue?.on('error', logErrorsSparingly(log, 'smtp.selftest_queue_error', 'self-test queue error'));
  const rules = {
    isRegistered: (address: string) => senders.byAddress(address) !== undefined,
    maxPdfBytes: config.maxPdfBytes,
    apiLimits: config.apiLimits,
  };
  const acceptDeps = acceptDepsFor(ctx, { store, queue, redis, replicas: replicas?.ack, senders: senders });
  const listener = await startListener(
    {
      ...config.smtp,
      inboundAddresses: config.inboundAddresses,
      selfTestAddress: config.selfTestAddress,
      maxMessageBytes: config.maxMessageBytes,
      authTimeoutMs: config.authTimeoutMs,
    },
    {
      authenticate: createAuthenticator(ctx.resolver ?? resolverFor(config), (from) => senders.byAddress(from)?.dkimSelectors),
      spool: rawStoreSpool(ctx.rawStore),
      accept: async (intake, message) => {
        const started = performance.now();
        const accepted = await acceptIntake(acceptDeps, intake, message);
        ctx.observer.stageDuration('store', (performance.now() - started) / 1000);
        return accepted;
      },
      startWalk: startMimeWalk,
      isSenderAddress: (address) => senders.byProcessingAddress(address) !== undefined,
      judgeRecipients: (from, rcptTo) => judgeRecipients(from, rcptTo, senders, config.inboundAddresses),
      rules,
      selfTest:
        selfTestQueue === undefined || config.selfTestAddress === undefined
          ? undefined
          : {
              address: config.selfTestAddress,
              reports: new SelfTestReports(redis, config.redisPrefix),
              enqueue: async (job) => {
                await selfTestQueue.add(SELF_TEST_QUEUE, job, {
                  jobId: job.id,
                  attempts: 3,
                  removeOnComplete: { age: 24 * 3600 },
                  removeOnFail: { age: 7 * 24 * 3600 },
                });
              },
              rules,
            },
      refused: (refusal) => {
        ctx.observer.sessionRefused(refusal.reasonCode);
        return recordRefusal(refusals, counts, refusal, ctx, log);
      },
      refusedAuthentication: (refusal) => recordRefusal(authRefused, counts, refusal, ctx, log),
      clock: ctx.clock,
      logger: log,
      observer: ctx.observer,
      tls: tls?.current(),
    },
  );
  listening = listener;
  return {
    name: 'smtp',
    port: listener.port,
    readiness: () => checkRedis(redis),
    async close() {
      await listener.close();
      await within(queue.close(), stepBound(redis, CLOSE_STEP_BOUND_MS));
      if (selfTestQueue !== undefined) await within(selfTestQueue.close(), stepBound(redis, CLOSE_STEP_BOUND_MS));
      redis.disconnect();
      replicas?.connection.disconnect();
    },
  };
}

/**
 * Counts the refusal and keeps its short record. The reply depends on neither: if Redis is slow
 * or down the refusal stands (it is permanent), and the miss is logged.
 */
async function recordRefusal(
  refusals: SessionRefusals,
  counts: RefusalCounts,
  refusal: SessionRefusal,
  ctx: PartContext,
  log: Logger,
): Promise<void> {
  await Promise.all([sampleRefusal(refusals, refusal, ctx, log), countRefusal(counts, refusal, ctx, log)]);
}

async function countRefusal(counts: RefusalCounts, refusal: SessionRefusal, ctx: PartContext, log: Logger): Promise<void> {
  try {
    const outcome = await withTimeout(counts.add(refusal), ctx.config.enqueueTimeoutMs, 'the refusal count');
    if (outcome === 'other')
      log.info({ event: 'smtp.refusal_counted_other', reasonCode: refusal.reasonCode }, "refusal counted in the day's other row");
  } catch (err) {
    log.warn({ err, event: 'smtp.refusal_not_counted', reasonCode: refusal.reasonCode }, 'session refusal not counted');
  }
}

async function sampleRefusal(refusals: SessionRefusals, refusal: SessionRefusal, ctx: PartContext, log: Logger): Promise<void> {
  try {
    const outcome = await withTimeout(refusals.add(refusal), ctx.config.enqueueTimeoutMs, 'the refusal record');
    if (outcome !== 'recorded' && outcome !== 'latest') {
      log.info(
        { event: 'smtp.refusal_not_recorded', reasonCode: refusal.reasonCode, bound: outcome },
        "session refusal over its record's bound",
      );
    }
  } catch (err) {
    log.warn({ err, event: 'smtp.refusal_not_recorded', reasonCode: refusal.reasonCode }, 'session refusal not recorded');
  }
}

function register<T>(ctx: PartContext, name: string, reloadable: Reloadable<T>): Reloadable<T> {
  return ctx.reloads?.add(name, reloadable) ?? reloadable;
}
