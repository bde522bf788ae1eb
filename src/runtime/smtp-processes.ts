// SMTP_PROCESSES > 1: the primary forks that many listener processes (smtp-listener-process.ts)
// through node:cluster; they share the SMTP port (the primary accepts and hands connections out
// in turn). The primary keeps its other parts (worker, ops HTTP, portal), answers /readyz and
// /metrics for all (listener-processes.ts), forwards SIGHUP, restarts a listener process that
// died or hung (restart-backoff.ts; logged, counted in letter_intake_smtp_listener_restarts_total;
// hung as listener-liveness.ts judges it)
// and, on shutdown, tells each to finish the sessions in flight and waits for all of them; from
// the shutdown's signal on it starts none again. /metrics keeps each slot's latest answer for when
// it does not answer, and carries an exited process's counters and histograms into its slot, so a
// summed counter never goes down (Prometheus would read a reset; listener-metrics.ts).
//
// A process killed mid-DATA never answered 250: acceptance answers only once the message is
// durable, so the MTA sees a dropped connection and retries (RFC 5321 §4.5.4.1).
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { Counter, Gauge, Registry } from 'prom-client';
import { ConfigError } from '../config.js';
import type { Env } from '../config-env.js';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ListenerProcesses } from '../ops/listener-processes.js';
import type { DependencyCheck } from '../ops/readiness.js';
import type { Closable } from './lifecycle.js';
import { HUNG_AFTER_MS, Liveness } from './listener-liveness.js';
import { type FromListener, fromListener, LISTENER_NUMBER_VARIABLE, type ToListener } from './listener-messages.js';
import { SlotMetrics } from './listener-metrics.js';
import { quickExitsAfter, restartDelayMs } from './restart-backoff.js';

/** How long /readyz and /metrics wait for a listener process's answer. */
const ASK_TIMEOUT_MS = 1000;
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
  /** Whether its process answers (judged by wall time). */
  liveness: Liveness;
  /** Its processes' metrics: the live one's latest answer and the exited ones' counters. */
  readonly metrics: SlotMetrics;
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
    liveness: new Liveness(),
    metrics: new SlotMetrics(),
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
    slot.liveness = new Liveness();
    const generation = slot.metrics.started();
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
        } else {
          // any answer, a late one too, shows it alive
          if (slot.worker === worker) slot.liveness.answered();
          // stored on receipt, under its generation: an answer that comes once it exited is dropped
          if (message.kind === 'letter-intake:metrics') slot.metrics.answered(generation, message.metrics);
          pending.get(message.id)?.(message);
        }
      });
      worker.once('exit', (code, signal) => {
        up.set({ listener: String(slot.number) }, 0);
        if (slot.worker === worker) slot.worker = undefined;
        loaded.delete(String(slot.number));
        slot.metrics.exited(generation);
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
        done(message);
      });
      slot.liveness.asked(performance.now());
      const request: ToListener = { kind, id };
      worker.send(request);
    });
  };

  /** A listening process judged hung (listener-liveness.ts) is killed; its exit starts it again. */
  const missed = (slot: Slot, worker: Worker): void => {
    if (slot.worker !== worker || closing) return;
    if (!slot.liveness.missed(performance.now())) return; // judged once: its exit is on the way
    log.error(
      { event: 'smtp.listener_hung', listener: slot.number, pid: worker.process.pid, hungAfterMs: HUNG_AFTER_MS },
      `listener process ${slot.number} answered nothing for ${HUNG_AFTER_MS} ms: killing it`,
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
      // each answer is stored as it arrives (the message handler); this waits for them
      await Promise.all(slots.map((slot) => ask(slot, 'letter-intake:metrics')));
      await Promise.all(slots.map((slot) => slot.metrics.compact()));
      const theirs = slots.flatMap((slot) => slot.metrics.snapshot());
      return [await registry.getMetricsAsJSON(), ...theirs];
    },
    async close() {
      await stopAll();
    },
  };
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
