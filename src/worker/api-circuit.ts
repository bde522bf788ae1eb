// The Sender API circuit: when most recent calls meet an outage (a 5xx, a time-out, a refused
// connection), retrying each intake on its own only burns the attempt budget (12 attempts span
// about 20 minutes), and after it every intake fails and every sender is told so. The circuit
// opens instead: the queue is paused (BullMQ's rate limit, as for a 429), a job whose call
// meets the outage goes back to the queue without spending an attempt, and a probe asks the API
// every interval; the first answer closes the circuit and the queue runs again. The opening is
// an operator alert (ApiOutage) and an error log line; the closing a warn line.
//
// `judgeCircuit` is the pure decision; `createApiCircuit` keeps the recent calls and the probe
// loop. Each worker process has its own circuit; the pause it sets holds every worker of the
// queue, so a process that saw nothing does not hammer the API meanwhile.
import { API_OUTAGE } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';

export interface CircuitPolicy {
  /** Calls in the window before the circuit may open (one failed call is a blip). */
  readonly minCalls: number;
  /** Only calls this recent count. */
  readonly windowMs: number;
  /** Only this many of the most recent calls count. */
  readonly windowCalls: number;
}

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_WINDOW_CALLS = 20;

export interface CallRecord {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly outage: boolean;
}

/** No answer (time-out, refused or reset connection) or a 5xx: the API is not there. A 4xx or a 429 is an answer. */
export function isOutage(status: number | undefined): boolean {
  return status === undefined || status >= 500;
}

/** Open when the window holds at least `minCalls` calls and more than half of them met an outage. */
export function judgeCircuit(calls: readonly CallRecord[], policy: CircuitPolicy, now: number): 'open' | 'closed' {
  const recent = calls.filter((c) => now - c.at <= policy.windowMs).slice(-policy.windowCalls);
  const outages = recent.filter((c) => c.outage).length;
  return recent.length >= policy.minCalls && outages * 2 > recent.length ? 'open' : 'closed';
}

export interface ApiCircuitDeps {
  readonly policy: CircuitPolicy;
  /** How often the open circuit asks the API; the queue's pause is renewed at each failed probe. */
  readonly probeIntervalMs: number;
  /** Resolves true when the API answered (any status below 500), false otherwise; never throws. */
  readonly probe: () => Promise<boolean>;
  /** Pauses the whole queue for this long (BullMQ's rate limit). */
  readonly pause: (ms: number) => Promise<void>;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: Pick<IntakeObserver, 'operatorAlert'>;
}

export interface ApiCircuit {
  /** One Sender API call's answer (its HTTP status, undefined for none). */
  record(status: number | undefined): void;
  /** While open: how long a job whose call met the outage holds the queue; undefined while closed. */
  pauseMsIfOpen(): number | undefined;
  readonly state: 'open' | 'closed';
  /** Stops probing (shutdown). */
  stop(): void;
}

export function createApiCircuit(deps: ApiCircuitDeps): ApiCircuit {
  // Covers the time to the next probe and the probe itself: the queue stays paused between them.
  const pauseMs = 2 * deps.probeIntervalMs;
  let calls: CallRecord[] = [];
  let state: 'open' | 'closed' = 'closed';
  let openedAt = 0;
  let probes = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const holdQueue = (): void => {
    deps
      .pause(pauseMs)
      .catch((err: unknown) => deps.logger.warn({ err, event: 'worker.api_circuit_pause_error' }, 'the queue could not be paused'));
  };

  const scheduleProbe = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void probeOnce(), deps.probeIntervalMs);
    timer.unref();
  };

  const probeOnce = async (): Promise<void> => {
    probes += 1;
    const answered = await deps.probe();
    if (stopped || state === 'closed') return;
    if (!answered) {
      holdQueue();
      scheduleProbe();
      return;
    }
    state = 'closed';
    calls = [];
    deps.logger.warn(
      { event: 'worker.api_circuit_closed', openMs: deps.clock() - openedAt, probes },
      'the Sender API answers again: the queue runs',
    );
  };

  const open = (now: number): void => {
    state = 'open';
    openedAt = now;
    probes = 0;
    const outages = calls.filter((c) => c.outage).length;
    deps.observer.operatorAlert('ApiOutage');
    deps.logger.error(
      { event: 'worker.api_circuit_open', errorCode: 'ApiOutage', outages, calls: calls.length, probeIntervalMs: deps.probeIntervalMs },
      API_OUTAGE.ApiOutage,
    );
    holdQueue();
    scheduleProbe();
  };

  return {
    record(status) {
      if (state === 'open') return; // the probe decides when it closes
      const now = deps.clock();
      calls.push({ at: now, outage: isOutage(status) });
      calls = calls.filter((c) => now - c.at <= deps.policy.windowMs).slice(-deps.policy.windowCalls);
      if (judgeCircuit(calls, deps.policy, now) === 'open') open(now);
    },
    pauseMsIfOpen: () => (state === 'open' ? pauseMs : undefined),
    get state() {
      return state;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
