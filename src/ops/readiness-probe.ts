// One readiness probe per process, asked by the public /readyz and the admin's detailed view:
// Redis and the queue within their bound, the raw store's cached probe, the API's health. The
// verdict's changes are logged once each, in full (the log is where the reasons go).
import type { Queue } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import type { ApiHealth } from './api-health.js';
import { cachedCheck } from './cached-check.js';
import { CHECK_TIMEOUT_MS, checkQueue, checkRedis } from './dependency-checks.js';
import type { ListenerProcesses } from './listener-processes.js';
import { checkRawStore } from './raw-store-check.js';
import { judgeReadiness, type Readiness } from './readiness.js';

/** How long one raw store probe (a write, a read, a delete) answers /readyz. */
export const RAW_STORE_PROBE_MAX_AGE_MS = 5000;

export interface ReadinessProbeDeps {
  readonly redis?: RedisClient | undefined;
  readonly queue?: Queue | undefined;
  readonly rawStore?: RawStore | undefined;
  readonly apiHealth?: ApiHealth | undefined;
  readonly started: () => boolean;
  /** The listener processes this process supervises, once they run (absent: none). */
  readonly listeners?: (() => ListenerProcesses | undefined) | undefined;
  readonly clock: () => number;
}

export interface ReadinessProbe {
  /** The verdict now; a change from the last one is logged through `log`. */
  check(log: FastifyBaseLogger): Promise<Readiness>;
}

export function readinessProbe(deps: ReadinessProbeDeps): ReadinessProbe {
  let wasReady: boolean | undefined;
  const rawStoreProbe = cachedCheck(() => checkRawStore(deps.rawStore, CHECK_TIMEOUT_MS), RAW_STORE_PROBE_MAX_AGE_MS, deps.clock);
  return {
    async check(log) {
      const [redis, queue, rawStore, listeners] = await Promise.all([
        checkRedis(deps.redis),
        checkQueue(deps.queue),
        rawStoreProbe.get(),
        deps.listeners?.()?.readiness(),
      ]);
      const verdict = judgeReadiness({
        redis,
        queue,
        rawStore,
        api: deps.apiHealth?.snapshot(),
        apis: deps.apiHealth?.byApi(),
        started: deps.started(),
        listeners,
        now: deps.clock(),
      });
      // One line when readiness changes, not one per probe.
      if (verdict.ready !== wasReady) {
        if (verdict.ready) log.info({ event: 'ops.ready' }, 'ready');
        else log.warn({ event: 'ops.unready', checks: verdict.checks }, 'not ready');
        wasReady = verdict.ready;
      }
      return verdict;
    },
  };
}
