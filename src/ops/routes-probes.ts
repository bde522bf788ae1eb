// Unauthenticated probes: /healthz (the process answers), /readyz (its dependencies answer),
// /metrics (Prometheus text format). None of them can hang on a Redis that is away. The raw
// store's probe writes a file (or an object): its answer is reused for a few seconds.
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import type { ApiHealth } from './api-health.js';
import { cachedCheck } from './cached-check.js';
import { CHECK_TIMEOUT_MS, checkQueue, checkRedis } from './dependency-checks.js';
import { checkRawStore } from './raw-store-check.js';
import { judgeReadiness } from './readiness.js';

export interface ProbeDeps {
  readonly registry: Registry;
  readonly redis?: RedisClient | undefined;
  readonly queue?: Queue | undefined;
  readonly rawStore?: RawStore | undefined;
  readonly apiHealth?: ApiHealth | undefined;
  readonly started: () => boolean;
  readonly clock: () => number;
  /** The versions of the sender directory and TLS pair this process serves (reported, not judged). */
  readonly loaded: () => Readonly<Record<string, { readonly version: string; readonly loadedAt: string }>>;
}

/** How long one raw store probe (a write, a read, a delete) answers /readyz. */
export const RAW_STORE_PROBE_MAX_AGE_MS = 5000;

export function probeRoutes(deps: ProbeDeps): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', async () => ({ status: 'ok' }));

    let wasReady: boolean | undefined;
    const rawStoreProbe = cachedCheck(() => checkRawStore(deps.rawStore, CHECK_TIMEOUT_MS), RAW_STORE_PROBE_MAX_AGE_MS, deps.clock);
    app.get('/readyz', async (request, reply) => {
      const [redis, queue, rawStore] = await Promise.all([checkRedis(deps.redis), checkQueue(deps.queue), rawStoreProbe.get()]);
      const verdict = judgeReadiness({
        redis,
        queue,
        rawStore,
        api: deps.apiHealth?.snapshot(),
        started: deps.started(),
        now: deps.clock(),
      });
      // One line when readiness changes, not one per probe.
      if (verdict.ready !== wasReady) {
        if (verdict.ready) request.log.info({ event: 'ops.ready' }, 'ready');
        else request.log.warn({ event: 'ops.unready', checks: verdict.checks }, 'not ready');
        wasReady = verdict.ready;
      }
      return reply.code(verdict.ready ? 200 : 503).send({ ...verdict, loaded: deps.loaded() });
    });

    app.get('/metrics', async (_request, reply) => {
      const text = await deps.registry.metrics();
      return reply.type(deps.registry.contentType).send(text);
    });
  };
}
