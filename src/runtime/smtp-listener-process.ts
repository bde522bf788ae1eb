// One listener process of a primary that runs SMTP_PROCESSES of them (smtp-processes.ts forks
// this file through node:cluster): the listener part on the shared SMTP port, with its share of
// the memory budget (SMTP_MEMORY_BUDGET_BYTES ÷ SMTP_PROCESSES), its own Redis connections,
// raw store and metrics. The primary asks for its readiness and metrics and tells it to stop;
// SIGHUP (forwarded by the primary) and its files' changes reload its sender directory and TLS
// pair. SIGINT is the primary's to act on (a terminal sends it to the whole process group).
import cluster from 'node:cluster';
import { Counter } from 'prom-client';
import { ConfigError } from '../config.js';
import { createMetrics } from '../ops/metrics.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { budgetShareBytes } from '../smtp/memory-budget.js';
import { required, roleContext } from './context.js';
import { holdHangups } from './hangups.js';
import { type FromListener, LISTENER_NUMBER_VARIABLE, toListener } from './listener-messages.js';
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

async function run(): Promise<void> {
  holdHangups();
  process.on('SIGINT', () => undefined);
  const number = process.env[LISTENER_NUMBER_VARIABLE] ?? '1';
  const base = roleContext(process.env, 'smtp');
  const logger = base.logger.child({ listener: Number(number) });
  const processes = base.config.smtp.processes ?? 1;
  const config = {
    ...base.config,
    smtp: { ...base.config.smtp, memoryBudgetBytes: budgetShareBytes(base.config.smtp.memoryBudgetBytes, processes) },
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

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    logger.info({ event: 'smtp.listener_closing' }, 'listener process: finishing the sessions in flight');
    setTimeout(() => process.exit(1), shutdownBoundMs(config)).unref();
    void smtp
      .close()
      .then(() => rawStore.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.warn({ err, event: 'smtp.listener_close_failed' }, 'listener process did not close cleanly');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('message', (raw: unknown) => {
    const parsed = toListener.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.kind === 'letter-intake:shutdown') shutdown();
    else if (message.kind === 'letter-intake:readiness') {
      const answer = closing ? Promise.resolve({ ok: false, error: 'closing' }) : smtp.readiness();
      void answer.then((check) => send({ kind: 'letter-intake:readiness', id: message.id, check, loaded: reloads.loaded() }));
    } else {
      void metrics.registry.getMetricsAsJSON().then((json) => send({ kind: 'letter-intake:metrics', id: message.id, metrics: json }));
    }
  });
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
