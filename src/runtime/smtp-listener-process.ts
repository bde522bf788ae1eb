// One listener process of a primary that runs SMTP_PROCESSES of them (smtp-processes.ts forks
// this file through node:cluster): the listener part on the shared SMTP port, with its share of
// the memory budget (SMTP_MEMORY_BUDGET_BYTES ÷ SMTP_PROCESSES), its own Redis connections,
// raw store and metrics. Its readiness is its Redis ping and its own store's broken state (the
// primary's readiness probes the store's reachability); a store broken by a failed fsync
// (GROUP_COMMIT) makes it finish its sessions and exit with STORE_BROKEN_EXIT_CODE, so the primary
// starts it again with a fresh store. The primary asks for its readiness and metrics and tells it
// to stop (a stop while it still starts ends it at once); SIGHUP (forwarded by the primary) and
// its files' changes reload its sender directory and TLS pair. SIGINT is the primary's to act on (a terminal sends it to the whole process group).
import cluster from 'node:cluster';
import { Counter } from 'prom-client';
import { withTimeout } from '../bounded.js';
import { ConfigError } from '../config.js';
import { createMetrics } from '../ops/metrics.js';
import type { DependencyCheck } from '../ops/readiness.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { budgetShareBytes } from '../smtp/memory-budget.js';
import { required, roleContext } from './context.js';
import { holdHangups } from './hangups.js';
import {
  type FromListener,
  LISTENER_NUMBER_VARIABLE,
  STORE_BROKEN_EXIT_CODE,
  type ToListener as ToListenerMessage,
  toListener,
} from './listener-messages.js';
import { Reloads } from './reloads.js';
import { shutdownBoundMs } from './roles.js';
import { startSmtpPart } from './smtp-part.js';
import { storeGroupCommit } from './store-group-commit.js';

function send(message: FromListener): Promise<void> {
  return new Promise((done) => {
    if (process.send === undefined || !process.connected) done();
    else process.send(message, undefined, {}, () => done());
  });
}

/** How long its Redis ping may take: well within the primary's one-second ask. */
const CHECK_BOUND_MS = 500;

async function run(): Promise<void> {
  holdHangups();
  process.on('SIGINT', () => undefined);
  // The stop comes first: one still starting holds no session, so a stop then ends it at once.
  let stop: ((code: number) => void) | undefined;
  const requestStop = (code: number): void => {
    if (stop === undefined) process.exit(code);
    else stop(code);
  };
  let answer: ((message: Exclude<ToListenerMessage, { kind: 'letter-intake:shutdown' }>) => void) | undefined;
  process.on('SIGTERM', () => requestStop(0));
  process.on('message', (raw: unknown) => {
    const parsed = toListener.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.kind === 'letter-intake:shutdown') requestStop(0);
    else answer?.(message);
  });
  const number = process.env[LISTENER_NUMBER_VARIABLE] ?? '1';
  const base = roleContext(process.env, 'smtp');
  const logger = base.logger.child({ listener: Number(number) });
  const processes = base.config.smtp.processes ?? 1;
  /** Its store's broken state (a failed shared fsync): set at once, read by its readiness. */
  let storeBroken: Error | undefined;
  const onBroken = (err: Error): void => {
    storeBroken = err;
    logger.error(
      { err, event: 'smtp.listener_store_broken', pid: process.pid },
      'raw store broken: this listener process exits to be started again',
    );
    requestStop(STORE_BROKEN_EXIT_CODE);
  };
  const config = {
    ...base.config,
    smtp: { ...base.config.smtp, memoryBudgetBytes: budgetShareBytes(base.config.smtp.memoryBudgetBytes, processes) },
    groupCommit: base.config.groupCommit === undefined ? undefined : { ...base.config.groupCommit, onBroken },
  };
  if (!cluster.isWorker) throw new ConfigError('a listener process is started by its primary (SMTP_PROCESSES), not by hand');
  const redisTopology = required(config.redisTopology, TOPOLOGY_VARIABLES.join(' or '), 'for a listener process');
  const rawStore = await openCheckedRawStore(config, logger, storeGroupCommit('listener', config));
  const metrics = createMetrics();
  // Which process served a session: summed over processes, the other counters cannot tell.
  const served = new Counter({
    name: 'letter_intake_smtp_listener_connections_total',
    help: 'SMTP connections accepted, by listener process (1 to SMTP_PROCESSES)',
    labelNames: ['listener'] as const,
    registers: [metrics.registry],
  });
  served.inc({ listener: number }, 0);
  const observer = {
    ...metrics.observer,
    smtpConnection: () => {
      metrics.observer.smtpConnection();
      served.inc({ listener: number });
    },
  };
  const reloads = new Reloads(logger);
  const ctx = { ...base, config, logger };
  const smtp = await startSmtpPart({ ...ctx, observer, redisTopology, rawStore, reloads });
  reloads.onSignal();
  // Its own store's broken state is part of its readiness (the primary's store instance never
  // writes its mail); that is a flag, so the answer never waits on the store. The store's
  // reachability is the primary's readiness probe's to judge: a probe per process, bounded within
  // the primary's ask, would let one slow S3 answer make the whole gateway unready.
  const readiness = async (): Promise<DependencyCheck> => {
    if (storeBroken !== undefined) return { ok: false, error: storeBroken.message };
    return withTimeout(smtp.readiness(), CHECK_BOUND_MS, 'redis').catch((err: unknown) => ({
      ok: false,
      error: err instanceof Error ? err.message : String(err),
    }));
  };

  let closing = false;
  stop = (code) => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(1), shutdownBoundMs(config)).unref();
    const closed = smtp.close(); // stops listening at once: the primary hands its connections to the others
    logger.info({ event: 'smtp.listener_closing', pid: process.pid }, 'listener process: finishing the sessions in flight');
    void closed
      .then(() => rawStore.close())
      .then(
        () => process.exit(code),
        (err: unknown) => {
          logger.warn({ err, event: 'smtp.listener_close_failed' }, 'listener process did not close cleanly');
          process.exit(1);
        },
      );
  };
  answer = (message) => {
    if (message.kind === 'letter-intake:readiness') {
      const check = closing ? Promise.resolve({ ok: false, error: 'closing' }) : readiness();
      void check.then((c) => send({ kind: 'letter-intake:readiness', id: message.id, check: c, loaded: reloads.loaded() }));
    } else {
      void metrics.registry.getMetricsAsJSON().then((json) => send({ kind: 'letter-intake:metrics', id: message.id, metrics: json }));
    }
  };
  logger.info(
    { event: 'smtp.listener_started', port: smtp.port, pid: process.pid, memoryBudgetBytes: config.smtp.memoryBudgetBytes },
    'listener process is up',
  );
  await send({ kind: 'letter-intake:listening', port: smtp.port });
}

run().catch(async (err: unknown) => {
  const name = err instanceof Error ? err.name : 'Error';
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  await send({ kind: 'letter-intake:failed', name, message, ...(code === undefined ? {} : { code }) });
  process.exit(1);
});
