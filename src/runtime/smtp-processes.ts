// SMTP_PROCESSES > 1: the primary forks that many listener processes (smtp-listener-process.ts)
// through node:cluster; they share the SMTP port (the primary accepts and hands connections out
// in turn). The primary keeps its other parts (worker, ops HTTP, portal), answers /readyz and
// /metrics for all (listener-processes.ts), forwards SIGHUP, restarts a listener process that
// died or hung (restart-backoff.ts; logged, counted in letter_intake_smtp_listener_restarts_total)
// and, on shutdown, tells each to finish the sessions in flight and waits for all of them; from
// the shutdown's signal on it starts none again. /metrics keeps each slot's latest answer for when
// it does not answer, and carries an exited process's counters and histograms into its slot, so a
// summed counter never goes down (Prometheus would read a reset).
//
// A process killed mid-DATA never answered 250: acceptance answers only once the message is
// durable, so the MTA sees a dropped connection and retries (RFC 5321 §4.5.4.1).
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { ConfigError } from '../config.js';
import type { Env } from '../config-env.js';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ListenerProcesses, MetricsJson } from '../ops/listener-processes.js';
import type { DependencyCheck } from '../ops/readiness.js';
import type { Closable } from './lifecycle.js';
import { type FromListener, fromListener, LISTENER_NUMBER_VARIABLE, type ToListener } from './listener-messages.js';
import { quickExitsAfter, restartDelayMs } from './restart-backoff.js';

/** How long /readyz and /metrics wait for a listener process's answer. */
const ASK_TIMEOUT_MS = 1000;
/** Asks in a row a listening process left unanswered before it is taken as hung and killed (then started again). */
export const HUNG_AFTER_MISSES = 3;
/** Errors of a listener process's start that are the operator's configuration to fix (exit 78). */
const CONFIG_ERRORS = new Set(['ConfigError', 'SenderDirectoryError', 'ZoneFileError', 'SenderApiConfigError']);

export interface SmtpProcesses extends Closable, ListenerProcesses {
  readonly port: number;
  /** The shutdown began (a signal): a listener process that exits from now on is not started again. */
  beginClose(): void;
  /** Forwards a reload (SIGHUP) to every listener process. */
  reload(): void;
}

export interface SmtpProcessesOptions {
  readonly count: number;
  /** What the listener processes get besides the primary's own environment (the demo's, the embedded Redis). */
  readonly env: Env;
  readonly logger: Logger;
  /** How long close() waits for the listener processes before it kills them. */
  readonly closeBoundMs: number;
}

interface Slot {
  readonly number: number;
  worker: Worker | undefined;
  listeningAt: number | undefined;
  quickExits: number;
  timer: NodeJS.Timeout | undefined;
  /** Asks in a row its process left unanswered. */
  misses: number;
  /** Its process's latest metrics answer: used while it does not answer. */
  last: MetricsJson | undefined;
  /** The counters and histograms of its processes that exited: its sums never go down. */
  carried: MetricsJson[];
}

/** The entry of a listener process, beside this file (.js when built, .ts under tsx). */
const ENTRY = fileURLToPath(new URL(`./smtp-listener-process${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export async function startSmtpProcesses(options: SmtpProcessesOptions): Promise<SmtpProcesses> {
  const { count, logger } = options;
  const log = logger.child({ role: 'smtp' });
  cluster.setupPrimary({ exec: ENTRY, args: [] });
  const registry = new Registry();
  const restarts = new Counter({
    name: 'letter_intake_smtp_listener_restarts_total',
    help: 'Listener processes started again after they died, by listener process',
    labelNames: ['listener'] as const,
    registers: [registry],
  });
  const up = new Gauge({
    name: 'letter_intake_smtp_listener_up',
    help: 'Whether a listener process is listening (1) or starting again (0), by listener process',
    labelNames: ['listener'] as const,
    registers: [registry],
  });
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    worker: undefined,
    listeningAt: undefined,
    quickExits: 0,
    timer: undefined,
    misses: 0,
    last: undefined,
    carried: [],
  }));
  for (const slot of slots) {
    restarts.inc({ listener: String(slot.number) }, 0);
    up.set({ listener: String(slot.number) }, 0);
  }
  let closing = false;
  /** Every listener process listened once: from now on one that exits is started again. */
  let started = false;
  let nextId = 0;
  const pending = new Map<number, (message: FromListener) => void>();
  const exits = new Set<Promise<void>>();
  /** Each listener process's file versions, from its latest readiness answer. */
  const loaded = new Map<string, Readonly<Record<string, { readonly version: string; readonly loadedAt: string }>>>();

  const childEnv = { ...options.env, SMTP_PROCESSES: String(count) };

  /** Forks the slot's process; resolves with its port once it listens, rejects if it fails first. */
  const fork = (slot: Slot): Promise<number> => {
    const worker = cluster.fork({ ...childEnv, [LISTENER_NUMBER_VARIABLE]: String(slot.number) });
    slot.worker = worker;
    slot.listeningAt = undefined;
    slot.misses = 0;
    const exited = new Promise<void>((done) => worker.once('exit', () => done()));
    exits.add(exited);
    void exited.then(() => exits.delete(exited));
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      worker.on('error', (err) => log.warn({ err, event: 'smtp.listener_ipc_error', listener: slot.number }, 'listener process IPC error'));
      worker.on('message', (raw: unknown) => {
        const parsed = fromListener.safeParse(raw);
        if (!parsed.success) return;
        const message = parsed.data;
        if (message.kind === 'letter-intake:listening') {
          slot.listeningAt = performance.now();
          up.set({ listener: String(slot.number) }, 1);
          settled = true;
          resolve(message.port);
        } else if (message.kind === 'letter-intake:failed') {
          if (!settled) {
            settled = true;
            reject(startFailure(slot.number, message));
          }
        } else pending.get(message.id)?.(message);
      });
      worker.once('exit', (code, signal) => {
        up.set({ listener: String(slot.number) }, 0);
        if (slot.worker === worker) slot.worker = undefined;
        loaded.delete(String(slot.number));
        if (slot.last !== undefined) slot.carried.push(countersOf(slot.last));
        slot.last = undefined;
        if (!settled) {
          settled = true;
          reject(new StartupError(`listener process ${slot.number} exited during its start (${signal ?? `exit code ${code}`})`));
        }
        // A first start that fails fails the role; a restart that fails is tried again.
        if (closing || (!started && slot.listeningAt === undefined)) return;
        const ranMs = slot.listeningAt === undefined ? 0 : performance.now() - slot.listeningAt;
        slot.quickExits = quickExitsAfter(slot.quickExits, ranMs);
        const delayMs = restartDelayMs(slot.quickExits);
        log.error(
          { event: 'smtp.listener_exited', listener: slot.number, pid: worker.process.pid, code, signal, restartInMs: delayMs },
          `listener process ${slot.number} exited: starting it again in ${delayMs} ms`,
        );
        slot.timer = setTimeout(() => restart(slot), delayMs);
      });
    });
  };

  const restart = (slot: Slot): void => {
    slot.timer = undefined;
    if (closing) return;
    restarts.inc({ listener: String(slot.number) });
    fork(slot).then(
      () =>
        log.info(
          { event: 'smtp.listener_restarted', listener: slot.number, pid: slot.worker?.process.pid },
          `listener process ${slot.number} is listening again`,
        ),
      (err: unknown) => log.error({ err, event: 'smtp.listener_restart_failed', listener: slot.number }, 'listener process did not start'),
    );
  };

  /** Asks a listening process and waits for its answer within ASK_TIMEOUT_MS. */
  const ask = (slot: Slot, kind: 'letter-intake:readiness' | 'letter-intake:metrics'): Promise<FromListener | undefined> => {
    const worker = slot.worker;
    if (worker === undefined || slot.listeningAt === undefined || !worker.isConnected()) return Promise.resolve(undefined);
    const id = nextId++;
    return new Promise((done) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        missed(slot, worker);
        done(undefined);
      }, ASK_TIMEOUT_MS);
      pending.set(id, (message) => {
        clearTimeout(timer);
        pending.delete(id);
        slot.misses = 0;
        done(message);
      });
      const request: ToListener = { kind, id };
      worker.send(request);
    });
  };

  /** A listening process that leaves HUNG_AFTER_MISSES asks in a row unanswered is killed; its exit starts it again. */
  const missed = (slot: Slot, worker: Worker): void => {
    if (slot.worker !== worker || closing) return;
    slot.misses++;
    if (slot.misses !== HUNG_AFTER_MISSES) return; // once: its exit is on the way
    log.error(
      { event: 'smtp.listener_hung', listener: slot.number, pid: worker.process.pid, misses: slot.misses },
      `listener process ${slot.number} left ${slot.misses} asks in a row unanswered: killing it`,
    );
    worker.process.kill('SIGKILL');
  };

  const beginClose = (): void => {
    closing = true;
    for (const slot of slots) if (slot.timer !== undefined) clearTimeout(slot.timer);
  };

  const stopAll = async (): Promise<void> => {
    beginClose();
    const shutdown: ToListener = { kind: 'letter-intake:shutdown' };
    for (const slot of slots) {
      // One still starting may not read its messages yet; it holds no session, so SIGTERM ends it.
      if (slot.listeningAt === undefined) slot.worker?.process.kill('SIGTERM');
      else if (slot.worker?.isConnected() === true) slot.worker.send(shutdown);
    }
    const killer = setTimeout(() => {
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
    }, options.closeBoundMs);
    await Promise.all([...exits]);
    clearTimeout(killer);
  };

  let ports: number[];
  try {
    ports = await Promise.all(slots.map(fork));
  } catch (err) {
    await stopAll();
    throw err;
  }
  started = true;
  const port = ports[0] ?? 0;
  log.info({ event: 'smtp.listeners_started', processes: count, port }, `${count} listener processes share port ${port}`);

  return {
    name: 'smtp',
    port,
    beginClose,
    reload() {
      // Only to those that listen: one still starting reads its files as it starts, and a SIGHUP
      // before its handler is in place would end it.
      for (const slot of slots) if (slot.listeningAt !== undefined) slot.worker?.process.kill('SIGHUP');
    },
    async readiness() {
      const answers = await Promise.all(slots.map((slot) => ask(slot, 'letter-intake:readiness')));
      for (const [i, answer] of answers.entries()) if (answer?.kind === 'letter-intake:readiness') loaded.set(String(i + 1), answer.loaded);
      return Object.fromEntries(slots.map((slot, i) => [String(slot.number), checkOf(slot, answers[i])]));
    },
    loaded: () => Object.fromEntries(loaded),
    async metrics() {
      const answers = await Promise.all(slots.map((slot) => ask(slot, 'letter-intake:metrics')));
      for (const [i, answer] of answers.entries()) {
        const slot = slots[i];
        if (slot !== undefined && answer?.kind === 'letter-intake:metrics') slot.last = answer.metrics;
      }
      await Promise.all(slots.map(compactCarried));
      const theirs = slots.flatMap((slot) => [...slot.carried, ...(slot.last === undefined ? [] : [slot.last])]);
      return [await registry.getMetricsAsJSON(), ...theirs];
    },
    async close() {
      await stopAll();
    },
  };
}

/** What of a process's metrics carries past its exit: counters and histograms (a gauge is of the moment). */
function countersOf(metrics: MetricsJson): MetricsJson {
  return metrics.filter((metric) => String(metric.type) === 'counter' || String(metric.type) === 'histogram');
}

/** Sums a slot's carried metrics into one set, so that restarts do not pile them up. */
async function compactCarried(slot: Slot): Promise<void> {
  if (slot.carried.length < 2) return;
  const taken = slot.carried;
  slot.carried = [];
  const sum = await AggregatorRegistry.aggregate(taken).getMetricsAsJSON();
  slot.carried.unshift(sum as MetricsJson);
}

function checkOf(slot: Slot, answer: FromListener | undefined): DependencyCheck {
  if (slot.worker === undefined) return { ok: false, error: 'exited; starting again' };
  if (slot.listeningAt === undefined) return { ok: false, error: 'starting' };
  if (answer?.kind !== 'letter-intake:readiness') return { ok: false, error: `no answer within ${ASK_TIMEOUT_MS} ms` };
  const { ok, error } = answer.check;
  return error === undefined ? { ok } : { ok, error };
}

/** A listener process's failed start, as the error the CLI turns into its exit code. */
function startFailure(number: number, message: Extract<FromListener, { kind: 'letter-intake:failed' }>): Error {
  if (CONFIG_ERRORS.has(message.name)) return new ConfigError(message.message);
  if (message.code !== undefined) return Object.assign(new Error(message.message), { code: message.code });
  return new StartupError(`listener process ${number}: ${message.message}`);
}
