// The Sender API circuit, one per Sender API (its base URL), judged by the calls it protects.
// When most recent calls meet an outage (a 5xx, a time-out, a refused connection), retrying each
// intake on its own only burns the attempt budget (12 attempts span about 20 minutes), and after
// it every intake fails and every sender is told so. The circuit opens instead: each job for this
// API goes back to the delayed set until the next trial (other APIs' jobs run on), and every call
// of this process to this API is held
// at the client's gate (sender-api/gate.ts) without reaching the API and without spending an
// attempt. Every `trialIntervalMs` one real call is let through as the trial (a login, or one
// waiting job's next step); it closes the circuit only when it succeeds. A call without a
// session proves nothing: an authentication layer answers it 401 while the backend behind it is
// down, so no such call opens or closes the circuit.
// The opening is an operator alert (ApiOutage) and an error log line; a hold longer than
// `maxHoldMs` repeats both, saying how long and what the last trial got; the closing is a warn line.
//
// An API that asks for a pause (a 429 or 503 with Retry-After) is held the same way, by that
// API's circuit whatever its state, until the time it named: its jobs wait in the delayed set and
// its calls are held at the gate, while other APIs' letters run on (`holdFor`).
//
// `judgeCircuit` and `trialSucceeded` are the pure decisions; `ApiCircuit` keeps the recent
// calls, the trial slot and the Retry-After hold. Each worker process has its own circuit per API
// (runtime/sender-apis.ts).
import { API_OUTAGE } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';
import type { Admission, ApiGate } from '../sender-api/index.js';

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

/**
 * A trial succeeds when the API itself answered it: any status below 500 but a 401, which an
 * authentication layer in front of a dead backend still gives (the session it refuses is renewed
 * by the next trial's login).
 */
export function trialSucceeded(status: number | undefined): boolean {
  return !isOutage(status) && status !== 401;
}

/** Open when the window holds at least `minCalls` calls and more than half of them met an outage. */
export function judgeCircuit(calls: readonly CallRecord[], policy: CircuitPolicy, now: number): 'open' | 'closed' {
  const recent = calls.filter((c) => now - c.at <= policy.windowMs).slice(-policy.windowCalls);
  const outages = recent.filter((c) => c.outage).length;
  return recent.length >= policy.minCalls && outages * 2 > recent.length ? 'open' : 'closed';
}

export interface ApiCircuitDeps {
  /** The Sender API this circuit protects (its base URL), for the logs. */
  readonly api: string;
  readonly policy: CircuitPolicy;
  /** While open: one real call is let through this often (API_CIRCUIT_PROBE_INTERVAL_MS). */
  readonly trialIntervalMs: number;
  /** An open circuit says again that it still holds, and why, this often (API_CIRCUIT_MAX_HOLD_MS). */
  readonly maxHoldMs: number;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: Pick<IntakeObserver, 'operatorAlert'>;
}

/** What the last trial of an open circuit got: its status, or none (time-out, refused connection). */
interface TrialRecord {
  readonly at: number;
  readonly status: number | undefined;
}

export class ApiCircuit implements ApiGate {
  #calls: CallRecord[] = [];
  #state: 'open' | 'closed' = 'closed';
  #openedAt = 0;
  #alertedAt = 0;
  #trials = 0;
  #nextTrialAt = 0;
  #trialInFlight = false;
  #lastTrial: TrialRecord | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Until when the API asked not to be called (Retry-After). */
  #heldUntil = 0;

  constructor(private readonly deps: ApiCircuitDeps) {}

  get state(): 'open' | 'closed' {
    return this.#state;
  }

  /** Before each call (sender-api/gate.ts): none while a Retry-After runs; closed, every call goes; open, only the trial when it is due. */
  admit(): Admission {
    const askedMs = this.#askedPauseMs(this.deps.clock());
    if (askedMs !== undefined) return { go: false, heldMs: askedMs };
    if (this.#state === 'closed') {
      return { go: true, settle: (status) => this.#record(status), cancel: () => undefined };
    }
    const now = this.deps.clock();
    if (this.#trialInFlight || now < this.#nextTrialAt) return { go: false, heldMs: this.#untilTrial(now) };
    this.#trialInFlight = true;
    this.#trials += 1;
    this.#nextTrialAt = now + this.deps.trialIntervalMs;
    let settled = false;
    return {
      go: true,
      settle: (status) => {
        if (settled) return;
        settled = true;
        this.#settleTrial(status);
      },
      cancel: () => {
        if (settled) return;
        settled = true;
        this.#trialInFlight = false;
        this.#nextTrialAt = this.deps.clock(); // nothing was learned: the next call may try
      },
    };
  }

  /** While open: how long a job that met the outage waits in the delayed set (until the next trial); undefined while closed. */
  pauseMsIfOpen(): number | undefined {
    return this.#state === 'open' ? this.#untilTrial(this.deps.clock()) : undefined;
  }

  /**
   * How long a job about to start waits in the delayed set instead (it would only be held at the
   * gate): while a Retry-After runs, or while open and no trial is due. Undefined otherwise: the job runs.
   */
  jobHoldMs(): number | undefined {
    const now = this.deps.clock();
    const askedMs = this.#askedPauseMs(now);
    if (askedMs !== undefined) return askedMs;
    if (this.#state === 'closed') return undefined;
    return this.#trialInFlight || now < this.#nextTrialAt ? this.#untilTrial(now) : undefined;
  }

  /** The API answered with Retry-After (a 429, a 503): none of this process's calls goes to it for `ms`. */
  holdFor(ms: number): void {
    this.#heldUntil = Math.max(this.#heldUntil, this.deps.clock() + ms);
  }

  #askedPauseMs(now: number): number | undefined {
    return now < this.#heldUntil ? this.#heldUntil - now : undefined;
  }

  /** Stops the hold alert's timer (shutdown). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #untilTrial(now: number): number {
    // At least a tenth of the interval: a job held just before a trial is due does not spin.
    return Math.max(this.#nextTrialAt - now, Math.ceil(this.deps.trialIntervalMs / 10));
  }

  #record(status: number | undefined): void {
    if (this.#state === 'open') return; // a call let through before it opened: the trials decide now
    const now = this.deps.clock();
    this.#calls.push({ at: now, outage: isOutage(status) });
    this.#calls = this.#calls.filter((c) => now - c.at <= this.deps.policy.windowMs).slice(-this.deps.policy.windowCalls);
    if (judgeCircuit(this.#calls, this.deps.policy, now) === 'open') this.#open(now);
  }

  #open(now: number): void {
    this.#state = 'open';
    this.#openedAt = now;
    this.#alertedAt = now;
    this.#trials = 0;
    this.#lastTrial = undefined;
    this.#nextTrialAt = now + this.deps.trialIntervalMs;
    const outages = this.#calls.filter((c) => c.outage).length;
    this.deps.observer.operatorAlert('ApiOutage');
    this.deps.logger.error(
      {
        event: 'worker.api_circuit_open',
        errorCode: 'ApiOutage',
        api: this.deps.api,
        outages,
        calls: this.#calls.length,
        trialIntervalMs: this.deps.trialIntervalMs,
      },
      API_OUTAGE.ApiOutage,
    );
    const checkEvery = Math.min(this.deps.trialIntervalMs, this.deps.maxHoldMs);
    this.#timer = setInterval(() => this.#alertIfHeldLong(), checkEvery);
    this.#timer.unref();
  }

  #settleTrial(status: number | undefined): void {
    this.#trialInFlight = false;
    const now = this.deps.clock();
    this.#lastTrial = { at: now, status };
    if (this.#state === 'closed') return;
    if (!trialSucceeded(status)) {
      this.#nextTrialAt = now + this.deps.trialIntervalMs;
      this.deps.logger.info(
        { event: 'worker.api_trial_failed', api: this.deps.api, status: status ?? 'none', trials: this.#trials },
        'the Sender API circuit stays open: its trial call met the outage',
      );
      return;
    }
    this.#state = 'closed';
    this.#calls = [];
    this.stop();
    this.deps.logger.warn(
      { event: 'worker.api_circuit_closed', api: this.deps.api, openMs: now - this.#openedAt, trials: this.#trials, status },
      'the Sender API answers a real call again: the queue runs',
    );
  }

  #alertIfHeldLong(): void {
    if (this.#state === 'closed') return;
    const now = this.deps.clock();
    if (now - this.#alertedAt < this.deps.maxHoldMs) return;
    this.#alertedAt = now;
    const last = this.#lastTrial;
    this.deps.observer.operatorAlert('ApiOutage');
    this.deps.logger.error(
      {
        event: 'worker.api_circuit_still_open',
        errorCode: 'ApiOutage',
        api: this.deps.api,
        openMs: now - this.#openedAt,
        trials: this.#trials,
        lastTrialStatus: last === undefined ? undefined : (last.status ?? 'none'),
        lastTrialAgoMs: last === undefined ? undefined : now - last.at,
      },
      `${API_OUTAGE.ApiOutage} Still holding after ${Math.round((now - this.#openedAt) / 1000)} s: ` +
        (last === undefined
          ? 'no call has needed the API since it opened.'
          : `the last trial got ${last.status === undefined ? 'no answer' : `HTTP ${last.status}`}.`),
    );
  }
}
