// The admin area, one encapsulated plugin behind HTTP basic auth: the BullMQ dashboard at
// /admin/queues and the intake pages under /admin/intakes. The server registers it only when a
// dashboard password is configured.

import basicAuth from '@fastify/basic-auth';
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import type { BulkReplayResult, ReplayFilter } from '../intake/bulk-replay.js';
import type { ReplayResult } from '../intake/replay.js';
import type { SessionRefusals } from '../intake/session-refusals.js';
import type { IntakeStore } from '../intake/store.js';
import { credentialsChecker, type DashboardLogin } from './credentials.js';
import { queueDashboard } from './queue-dashboard.js';
import { answerWhileRedisAway } from './redis-away.js';
import { intakeRoutes } from './routes-intakes.js';

export const QUEUES_PATH = '/admin/queues';

export interface AdminDeps {
  readonly login: DashboardLogin;
  readonly queue?: Queue | undefined;
  readonly store?: IntakeStore | undefined;
  readonly replay?: ((intakeId: string) => Promise<ReplayResult>) | undefined;
  readonly replayFailed?: ((filter: ReplayFilter) => Promise<BulkReplayResult>) | undefined;
  readonly refusals?: SessionRefusals | undefined;
  readonly clock: () => number;
  /** The connection the pages read through; while it is not ready they answer 503 at once. */
  readonly redis?: Pick<Redis, 'status'> | undefined;
}

export function adminRoutes(deps: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    const check = credentialsChecker(deps.login);
    await app.register(basicAuth, {
      authenticate: { realm: 'letter-intake admin' },
      validate: async (user, password) => {
        if (!check(user, password)) return new Error('wrong user name or password');
      },
    });
    // Every route registered in this plugin (and its children) needs the login.
    app.addHook('onRequest', app.basicAuth);
    if (deps.redis !== undefined) app.addHook('onRequest', answerWhileRedisAway(deps.redis));

    if (deps.queue !== undefined) await app.register(queueDashboard(deps.queue, QUEUES_PATH), { prefix: QUEUES_PATH });
    if (deps.store !== undefined) {
      await app.register(
        intakeRoutes({
          store: deps.store,
          replay: deps.replay,
          replayFailed: deps.replayFailed,
          refusals: deps.refusals,
          clock: deps.clock,
        }),
      );
    }
  };
}
