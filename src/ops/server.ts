// The ops HTTP server: probes and metrics for everyone, the admin area (queue dashboard, intake
// pages, replay) only when a dashboard password is configured. Request lines are logged at
// debug level: probes and scrapes arrive every few seconds.

import type { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Registry } from 'prom-client';
import type { BulkReplayResult, ReplayFilter } from '../intake/bulk-replay.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { RefusalCounts } from '../intake/refusal-counts.js';
import type { ReplayResult } from '../intake/replay.js';
import type { SelfTestJobData } from '../intake/self-test-queue.js';
import type { SelfTestReports } from '../intake/self-test-reports.js';
import type { SessionRefusals } from '../intake/session-refusals.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { MtaStsSettings } from '../mta-sts/policy.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import type { ApiHealth } from './api-health.js';
import { landingRoute } from './landing-page.js';
import type { ListenerProcesses } from './listener-processes.js';
import { LoginThrottle } from './login-throttle.js';
import { readinessProbe } from './readiness-probe.js';
import { mtaStsRoutes } from './routes-mta-sts.js';
import { probeRoutes } from './routes-probes.js';
import type { SenderView } from './senders-page.js';

export interface OpsServerDeps {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly registry: Registry;
  /** Checked by /readyz with a bounded PING; not checked when absent. */
  readonly redis?: RedisClient;
  /** Checked by /readyz and shown on the dashboard. */
  readonly queue?: Queue<IntakeJobData>;
  /** Shown on the dashboard beside the intake queue. */
  readonly selfTestQueue?: Queue<SelfTestJobData> | undefined;
  /** Backs the intake pages; without it they are not served. */
  readonly store?: IntakeStore;
  /** The role's raw store, probed by /readyz (absent: not used by this process). */
  readonly rawStore?: RawStore | undefined;
  /** Backs the page of messages refused in the session; without it, it is not served. */
  readonly refusals?: SessionRefusals;
  /** Messages refused for failing authentication, shown beside `refusals`. */
  readonly authRefusals?: SessionRefusals;
  /** Every refusal counted, shown above the samples (refusal-counts.ts). */
  readonly refusalCounts?: RefusalCounts;
  /** The self-test reports (intake/self-test-reports.ts); without them, no self-test pages. */
  readonly selfTestReports?: SelfTestReports;
  /** Sender API health of this process (from createMetrics), reported by /readyz. */
  readonly apiHealth?: ApiHealth;
  /** Re-queues a failed intake; without it there is no replay route or button. */
  readonly replay?: (intakeId: string) => Promise<ReplayResult>;
  /** Re-queues the failed intakes a filter matches (the failed-intakes page's bulk replay). */
  readonly replayFailed?: (filter: ReplayFilter) => Promise<BulkReplayResult>;
  /** The admin login; no password → no admin routes at all. */
  readonly dashboard: { readonly user: string; readonly password: string | undefined };
  /** Proxies whose X-Forwarded-For names the client (OPS_HTTP_TRUSTED_PROXIES); none: the socket's address. */
  readonly trustedProxies?: readonly string[];
  /** How a throttled login waits (login-throttle.ts); a timer when absent. */
  readonly loginDelay?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch; Date.now when absent. */
  readonly clock?: () => number;
  /** Has the process's role started? /readyz is 503 until it has. Absent: always. */
  readonly started?: () => boolean;
  /** The listener processes this process supervises (SMTP_PROCESSES > 1), once they run. */
  readonly listeners?: () => ListenerProcesses | undefined;
  /** With MTA_STS_MODE: the policy served at /.well-known/mta-sts.txt. */
  readonly mtaSts?: MtaStsSettings | undefined;
  /** The loaded versions of the files the process reloads (sender directory, TLS pair), shown by /readyz. */
  /** Each sender's settings and use of its limits, for the senders page. */
  readonly senders?: (() => Promise<readonly SenderView[]>) | undefined;
  readonly loaded?: () => Readonly<Record<string, { readonly version: string; readonly loadedAt: string }>>;
}

export interface OpsServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startOpsServer(deps: OpsServerDeps): Promise<OpsServer> {
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'ops-http' });
  const trusted = deps.trustedProxies ?? [];
  // request.ip is then the client's address as the trusted proxies forwarded it
  const app = Fastify({ loggerInstance, logController: new DebugRequestLog(), trustProxy: trusted.length > 0 ? [...trusted] : false });

  const readiness = readinessProbe({
    redis: deps.redis,
    queue: deps.queue,
    rawStore: deps.rawStore,
    apiHealth: deps.apiHealth,
    started: deps.started ?? (() => true),
    listeners: deps.listeners,
    clock: deps.clock ?? Date.now,
  });
  const loaded = deps.loaded ?? (() => ({}));
  await app.register(probeRoutes({ registry: deps.registry, readiness, loaded, listeners: deps.listeners }));

  if (deps.mtaSts !== undefined) await app.register(mtaStsRoutes(deps.mtaSts));

  const password = deps.dashboard.password;
  await app.register(landingRoute(password !== undefined));
  if (password === undefined) {
    loggerInstance.warn(
      { event: 'ops.admin_disabled' },
      'admin routes (/admin/queues, /admin/intakes, /admin/readyz, replay) are not served: DASHBOARD_PASSWORD is not set, and they are never served without a login',
    );
  } else {
    // Loaded only when served: the dashboard's code is a sizeable share of a process's memory.
    const { adminRoutes } = await import('./routes-admin.js');
    await app.register(
      adminRoutes({
        login: { user: deps.dashboard.user, password },
        throttle: new LoginThrottle(trusted.length > 0 ? 'per-address' : 'per-user', deps.clock ?? Date.now),
        loginDelay: deps.loginDelay ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        queue: deps.queue,
        selfTestQueue: deps.selfTestQueue,
        store: deps.store,
        replay: deps.replay,
        replayFailed: deps.replayFailed,
        refusals: deps.refusals,
        authRefusals: deps.authRefusals,
        refusalCounts: deps.refusalCounts,
        selfTestReports: deps.selfTestReports,
        rawStore: deps.rawStore,
        clock: deps.clock ?? Date.now,
        redis: deps.redis,
        readiness,
        loaded,
        senders: deps.senders,
      }),
    );
  }

  await app.listen({ host: deps.host, port: deps.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : deps.port;
  return {
    url: `http://${urlHost(deps.host)}:${port}`,
    port,
    close: () => app.close(),
  };
}

/**
 * fastify's request lines at debug level, one per request; a refused request (401, 404) is one
 * line without a stack (an unknown path at debug: scanners find every open port); 5xx keep
 * fastify's error line.
 */
class DebugRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) {
      super.requestCompleted(error, request, reply);
      return;
    }
    request.log.debug({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: reply.elapsedTime }, 'ops request');
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) {
      super.defaultErrorLog(error, request, reply);
      return;
    }
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, reason: error.message },
      'ops request refused',
    );
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'ops request for an unknown path');
  }
}

/** A wildcard bind is reached on loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
