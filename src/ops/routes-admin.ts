// The admin area, one encapsulated plugin behind HTTP basic auth: the BullMQ dashboard at
// /admin/queues and the intake pages under /admin/intakes. The server registers it only when a
// dashboard password is configured.

import basicAuth from '@fastify/basic-auth';
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import type { BulkReplayResult, ReplayFilter } from '../intake/bulk-replay.js';
import type { RefusalCounts } from '../intake/refusal-counts.js';
import type { ReplayResult } from '../intake/replay.js';
import type { SelfTestReports } from '../intake/self-test-reports.js';
import type { SessionRefusals } from '../intake/session-refusals.js';
import type { IntakeStore } from '../intake/store.js';
import { networkOf } from '../net/client-network.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import { withContentSecurity } from './content-security.js';
import { credentialsChecker, type DashboardLogin } from './credentials.js';
import type { LoginThrottle } from './login-throttle.js';
import { queueDashboard } from './queue-dashboard.js';
import type { ReadinessProbe } from './readiness-probe.js';
import { answerWhileRedisAway } from './redis-away.js';
import { RedisWatch } from './redis-watch.js';
import { intakeRoutes } from './routes-intakes.js';
import { rawRoutes } from './routes-raw.js';
import { selfTestRoutes } from './routes-self-tests.js';
import { renderSenders, SENDERS_PATH, type SenderView } from './senders-page.js';

export const QUEUES_PATH = '/admin/queues';
/** /readyz's verdict with its reasons (errors, paths, queue counts, API health). */
export const READINESS_PATH = '/admin/readyz';

const REFUSALS = {
  'per-address': 'too many failed logins from your address, try again later',
  'per-user': 'too many logins waiting under this user name, try again later',
} as const;

/** A client is its IPv4 address or its IPv6 /64. */
const PER_CLIENT = { v4Bits: 32, v6Bits: 64 } as const;

export interface AdminDeps {
  readonly login: DashboardLogin;
  /** Failed logins, limited per client address or slowed per user name. */
  readonly throttle: LoginThrottle;
  readonly loginDelay: (ms: number) => Promise<void>;
  readonly queue?: Queue | undefined;
  /** The self-test queue, listed on the dashboard beside the intake queue. */
  readonly selfTestQueue?: Queue | undefined;
  readonly store?: IntakeStore | undefined;
  readonly replay?: ((intakeId: string) => Promise<ReplayResult>) | undefined;
  readonly replayFailed?: ((filter: ReplayFilter) => Promise<BulkReplayResult>) | undefined;
  readonly refusals?: SessionRefusals | undefined;
  readonly authRefusals?: SessionRefusals | undefined;
  readonly refusalCounts?: RefusalCounts | undefined;
  readonly selfTestReports?: SelfTestReports | undefined;
  /** The raw store, when this process has it: the intake page then serves the raw message and PDFs. */
  readonly rawStore?: RawStore | undefined;
  readonly clock: () => number;
  /** The connection the pages read through; while it does not answer they answer 503 within 2 s. */
  readonly redis?: Pick<RedisClient, 'status' | 'ping'> | undefined;
  /** /readyz's probe: its verdict in full (the reasons) at /admin/readyz. */
  readonly readiness?: ReadinessProbe | undefined;
  readonly loaded?: (() => Readonly<Record<string, unknown>>) | undefined;
  /** Each sender's settings and use of its limits; no senders page without it. */
  readonly senders?: (() => Promise<readonly SenderView[]>) | undefined;
}

export function adminRoutes(deps: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    const check = credentialsChecker(deps.login);
    const { throttle } = deps;
    await app.register(basicAuth, {
      authenticate: { realm: 'letter-intake admin' },
      validate: async (user, password, request, reply) => {
        const verdict = check(user, password);
        // per user name: the configured one, or any other (a bounded pair whatever is guessed)
        const key = throttle.mode === 'per-address' ? networkOf(request.ip, PER_CLIENT) : verdict.userMatches ? 'user' : 'other';
        const gate = throttle.gate(key);
        if (gate.kind === 'refuse') {
          void reply.header('retry-after', String(Math.max(1, Math.ceil(gate.retryAfterMs / 1000))));
          return Object.assign(new Error(REFUSALS[throttle.mode]), { statusCode: 429 });
        }
        try {
          if (gate.delayMs > 0) await deps.loginDelay(gate.delayMs);
        } catch (err) {
          throttle.failed(key); // the turn ends whatever befell the wait
          throw err;
        }
        if (verdict.ok) {
          throttle.succeeded(key);
          return undefined;
        }
        throttle.failed(key);
        request.log.info({ event: 'ops.login_failed', key, mode: throttle.mode }, 'admin login failed');
        return new Error('wrong user name or password');
      },
    });
    // Every route registered in this plugin (and its children) needs the login.
    app.addHook('onRequest', app.basicAuth);
    app.addHook('onSend', withContentSecurity);
    // Registered before the Redis guard: the reasons matter most while Redis is away.
    const { readiness } = deps;
    if (readiness !== undefined) {
      app.get(READINESS_PATH, async (request, reply) => {
        const verdict = await readiness.check(request.log);
        return reply.code(verdict.ready ? 200 : 503).send({ ...verdict, loaded: deps.loaded?.() ?? {} });
      });
    }
    if (deps.redis !== undefined) {
      const away = answerWhileRedisAway(new RedisWatch(deps.redis, deps.clock), deps.clock, [READINESS_PATH]);
      app.addHook('onRequest', away.onRequest);
      app.addHook('onResponse', away.onResponse);
      app.addHook('onRequestAbort', away.onRequestAbort);
    }

    if (deps.queue !== undefined) await app.register(queueDashboard(deps.queue, QUEUES_PATH, deps.selfTestQueue), { prefix: QUEUES_PATH });
    if (deps.selfTestReports !== undefined) await app.register(selfTestRoutes(deps.selfTestReports));
    if (deps.store !== undefined && deps.rawStore !== undefined)
      await app.register(rawRoutes({ store: deps.store, rawStore: deps.rawStore }));
    if (deps.store !== undefined) {
      await app.register(
        intakeRoutes({
          store: deps.store,
          replay: deps.replay,
          replayFailed: deps.replayFailed,
          refusals: deps.refusals,
          authRefusals: deps.authRefusals,
          refusalCounts: deps.refusalCounts,
          rawAvailable: deps.rawStore !== undefined,
          clock: deps.clock,
        }),
      );
    }
    const senders = deps.senders;
    if (senders !== undefined) {
      app.get<{ Querystring: Record<string, string | undefined> }>(SENDERS_PATH, async (request, reply) => {
        const views = await senders();
        const html = request.query.format !== 'json' && (request.headers.accept ?? '').includes('text/html');
        if (html) return reply.type('text/html; charset=utf-8').send(renderSenders(views));
        return { senders: views };
      });
    }
  };
}
