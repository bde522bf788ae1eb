// The ops HTTP part every role carries: health, readiness and metrics of this process, and,
// for `ops` and `start`, the queue dashboard and the intake pages.

import { authRefusals } from '../intake/auth-refusals.js';
import { replayFailed } from '../intake/bulk-replay.js';
import { IntakeMarkers } from '../intake/markers.js';
import type { IntakeObserver } from '../intake/observer.js';
import { createIntakeQueue } from '../intake/queue.js';
import { RefusalCounts } from '../intake/refusal-counts.js';
import { replayIntake } from '../intake/replay.js';
import { createSelfTestQueue } from '../intake/self-test-queue.js';
import { SelfTestReports } from '../intake/self-test-reports.js';
import { SessionRefusals } from '../intake/session-refusals.js';
import type { ListenerProcesses } from '../ops/listener-processes.js';
import { createMetrics } from '../ops/metrics.js';
import { senderViews } from '../ops/sender-views.js';
import { startOpsServer } from '../ops/server.js';
import type { RawStore } from '../raw-store/raw-store.js';
import { openRedis } from '../redis/connections.js';
import type { RedisTopology } from '../redis/topology.js';
import { addressesInUse } from '../senders/addresses-in-use.js';
import type { LoadedVersion } from '../support/reloadable.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { CLOSE_STEP_BOUND_MS, stepBound, within } from './bounded-close.js';
import type { RoleContext } from './context.js';
import type { Closable } from './lifecycle.js';
import { storeFor } from './part-context.js';
import { logConnectionErrors } from './redis.js';
import { warnAboutRedisDurability } from './redis-durability.js';

export interface OpsPart extends Closable {
  readonly observer: IntakeObserver;
  readonly url: string;
  /** The role is up: /readyz may answer 200 from now on. */
  markStarted(): void;
  /** The listener processes this process runs: /readyz and /metrics include them from now on. */
  attachListeners(listeners: ListenerProcesses): void;
}

export async function startOpsPart(
  ctx: RoleContext,
  redisTopology: RedisTopology,
  options: {
    readonly admin: boolean /** The role's raw store, checked by /readyz (none for `ops`). */;
    readonly rawStore?: RawStore | undefined;
    /** The versions of the files the process reloads, shown by /readyz. */
    readonly loaded?: () => Record<string, LoadedVersion>;
  },
): Promise<OpsPart> {
  const { config } = ctx;
  const log = ctx.logger.child({ role: 'ops' });
  const redis = openRedis(redisTopology, { kind: 'worker' });
  // Readiness reports an outage; these keep ioredis from printing it as an unhandled event.
  logConnectionErrors(redis, log, 'ops.redis_error');
  const queue = createIntakeQueue(redis, config.redisPrefix);
  queue.on('error', logErrorsSparingly(log, 'ops.queue_error', 'queue error'));
  const selfTestQueue = config.selfTestAddress === undefined ? undefined : createSelfTestQueue(redis, config.redisPrefix);
  selfTestQueue?.on('error', logErrorsSparingly(log, 'ops.selftest_queue_error', 'self-test queue error'));
  const metrics = createMetrics({ queue });
  const store = storeFor({ config }, redis);
  let started = false;
  let listeners: ListenerProcesses | undefined;
  // A replay clears the raw store's `failed` end where this process has the store (start, not the ops role).
  const markers = options.rawStore === undefined ? undefined : new IntakeMarkers(options.rawStore);
  const replayDeps = { store, queue, clock: ctx.clock, attempts: config.worker.attempts, markers };
  const server = await startOpsServer({
    host: config.opsHttp.host,
    port: config.opsHttp.port,
    logger: log,
    registry: metrics.registry,
    redis,
    queue,
    selfTestQueue,
    store,
    rawStore: options.rawStore,
    clock: ctx.clock,
    refusals: new SessionRefusals(redis, config.redisPrefix, config.recordRetentionMs),
    authRefusals: authRefusals(redis, config.redisPrefix, config.refusedMaxBytes),
    refusalCounts: new RefusalCounts(redis, config.redisPrefix, config.recordRetentionMs, config.refusalCountKeys),
    ...(config.selfTestAddress === undefined ? {} : { selfTestReports: new SelfTestReports(redis, config.redisPrefix) }),
    apiHealth: metrics.apiHealth,
    replay: (id) => replayIntake(replayDeps, id),
    replayFailed: (filter) => replayFailed(replayDeps, filter),
    dashboard: { user: config.opsHttp.dashboardUser, password: options.admin ? config.opsHttp.dashboardPassword : undefined },
    trustedProxies: config.opsHttp.trustedProxies,
    mtaSts: config.privacy.mtaSts,
    started: () => started,
    listeners: () => listeners,
    senders: () =>
      senderViews({ sendersFile: config.sendersFile, inUse: addressesInUse(config), redis, prefix: config.redisPrefix, now: ctx.clock() }),
    ...(options.loaded === undefined ? {} : { loaded: options.loaded }),
  });
  return {
    name: 'ops',
    observer: metrics.observer,
    url: server.url,
    attachListeners: (processes) => {
      listeners = processes;
    },
    markStarted: () => {
      started = true;
      void warnAboutRedisDurability(redis, config.redisPrefix, ctx.logger);
    },
    async close() {
      await server.close();
      await within(queue.close(), stepBound(redis, CLOSE_STEP_BOUND_MS));
      if (selfTestQueue !== undefined) await within(selfTestQueue.close(), stepBound(redis, CLOSE_STEP_BOUND_MS));
      redis.disconnect();
    },
  };
}
