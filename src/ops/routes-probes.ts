// Unauthenticated probes: /healthz (the process answers), /readyz (its dependencies answer: each
// check ok or failing, and the loaded file versions; the reasons are behind the admin login),
// /metrics (Prometheus text format). None of them can hang on a Redis that is away.
import type { FastifyPluginAsync } from 'fastify';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { ListenerProcesses } from './listener-processes.js';
import { publicReadiness } from './public-readiness.js';
import type { ReadinessProbe } from './readiness-probe.js';

export interface ProbeDeps {
  readonly registry: Registry;
  readonly readiness: ReadinessProbe;
  /** The versions of the sender directory and TLS pair this process serves (reported, not judged). */
  readonly loaded: () => Readonly<Record<string, { readonly version: string; readonly loadedAt: string }>>;
  /** The listener processes this process supervises, once they run: their metrics are added to ours. */
  readonly listeners?: (() => ListenerProcesses | undefined) | undefined;
}

export function probeRoutes(deps: ProbeDeps): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', async () => ({ status: 'ok' }));

    app.get('/readyz', async (request, reply) => {
      const verdict = await deps.readiness.check(request.log);
      const listeners = deps.listeners?.();
      return reply.code(verdict.ready ? 200 : 503).send({
        ...publicReadiness(verdict),
        loaded: deps.loaded(),
        ...(listeners === undefined ? {} : { listenersLoaded: listeners.loaded() }),
      });
    });

    app.get('/metrics', async (_request, reply) => {
      const listeners = deps.listeners?.();
      if (listeners === undefined) return reply.type(deps.registry.contentType).send(await deps.registry.metrics());
      // One exposition for the gateway: counters summed over processes, as prom-client's cluster mode does.
      const [own, theirs] = await Promise.all([deps.registry.getMetricsAsJSON(), listeners.metrics()]);
      const all = AggregatorRegistry.aggregate([own.map(primaryStartTime), ...theirs]);
      return reply.type(all.contentType).send(await all.metrics());
    });
  };
}

/** process_start_time_seconds is the primary's (prom-client omits it when it aggregates). */
function primaryStartTime<T extends { name: string; aggregator: string }>(metric: T): T {
  return metric.name === 'process_start_time_seconds' ? { ...metric, aggregator: 'first' } : metric;
}
