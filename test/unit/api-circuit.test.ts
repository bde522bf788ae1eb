import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import type { Admission } from '../../src/sender-api/index.js';
import { ApiCircuit, type CallRecord, isOutage, judgeCircuit, trialSucceeded } from '../../src/worker/api-circuit.js';

const policy = { minCalls: 5, windowMs: 60_000, windowCalls: 20 };
const NOW = 1_000_000;
const calls = (pattern: string, at = NOW): CallRecord[] => [...pattern].map((c) => ({ at, outage: c === 'x' }));

describe('isOutage', () => {
  it.each([
    [undefined, true],
    [500, true],
    [503, true],
    [504, true],
    [429, false],
    [401, false],
    [400, false],
    [200, false],
  ] as const)('status %s → %s', (status, outage) => {
    expect(isOutage(status)).toBe(outage);
  });
});

describe('judgeCircuit', () => {
  it.each([
    ['xxxx', 'closed', 'too few calls to judge'],
    ['xxxxx', 'open', 'every call met the outage'],
    ['xxx..', 'open', 'most calls met the outage'],
    ['xx...', 'closed', 'most calls were answered'],
    ['xxx...', 'closed', 'exactly half is not most'],
    [`${'.'.repeat(20)}xxxxxxxxxxxxxxx`, 'open', 'only the 20 most recent calls count'],
  ] as const)('%s → %s (%s)', (pattern, verdict, _why) => {
    expect(judgeCircuit(calls(pattern), policy, NOW)).toBe(verdict);
  });

  it('forgets calls older than the window', () => {
    const old = calls('xxxxx', NOW - 61_000);
    expect(judgeCircuit(old, policy, NOW)).toBe('closed');
    expect(judgeCircuit([...old, ...calls('xxxxx')], policy, NOW)).toBe('open');
  });
});

describe('trialSucceeded', () => {
  it.each([
    [200, true, 'a letter call answered'],
    [400, true, 'the API refused the letter: it is there'],
    [429, true, 'a rate limit is an answer'],
    [401, false, 'an authentication layer answers 401 while the backend is down'],
    [503, false, 'the backend is down'],
    [undefined, false, 'no answer'],
  ] as const)('status %s → %s (%s)', (status, succeeded, _why) => {
    expect(trialSucceeded(status)).toBe(succeeded);
  });
});

const TRIAL_MS = 1000;

function circuitWithClock(maxHoldMs = 60_000) {
  let now = NOW;
  const alerts: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const circuit = new ApiCircuit({
    api: 'https://api.example',
    policy,
    trialIntervalMs: TRIAL_MS,
    maxHoldMs,
    clock: () => now,
    logger,
    observer: { operatorAlert: (code) => alerts.push(code) },
  });
  const advance = (ms: number): void => {
    now += ms;
  };
  return { circuit, alerts, lines, advance };
}

/** One call through the gate: its answer, or 'held' when it never left. */
function call(circuit: ApiCircuit, status: number | undefined): 'sent' | 'held' {
  const admission: Admission = circuit.admit();
  if (!admission.go) return 'held';
  admission.settle(status);
  return 'sent';
}

function openIt(circuit: ApiCircuit): void {
  for (let i = 0; i < policy.minCalls; i += 1) call(circuit, 503);
}

describe('ApiCircuit', () => {
  it('opens on an outage: alerts, and holds every call at the gate until a trial is due', () => {
    const { circuit, alerts } = circuitWithClock();
    for (const status of [503, 503, 400, undefined]) expect(call(circuit, status)).toBe('sent');
    expect(circuit.state).toBe('closed');
    expect(circuit.pauseMsIfOpen()).toBeUndefined();
    expect(circuit.jobHoldMs()).toBeUndefined();
    call(circuit, 502);
    expect(circuit.state).toBe('open');
    expect(alerts).toEqual(['ApiOutage']);
    expect(circuit.admit()).toEqual({ go: false, heldMs: TRIAL_MS });
    expect(circuit.jobHoldMs()).toBe(TRIAL_MS);
    circuit.stop();
  });

  it('lets exactly one real call through per interval, stays open while trials fail, and closes on the first that succeeds', () => {
    const { circuit, advance } = circuitWithClock();
    openIt(circuit);
    const sent: string[] = [];
    for (let tick = 0; tick < 10; tick += 1) {
      advance(TRIAL_MS / 4);
      // Four jobs want the API every quarter interval: only a due trial leaves.
      for (let job = 0; job < 4; job += 1) sent.push(call(circuit, 503));
    }
    expect(sent.filter((s) => s === 'sent')).toHaveLength(2); // at 1 s and 2 s
    expect(circuit.state).toBe('open');
    advance(TRIAL_MS);
    expect(call(circuit, 201)).toBe('sent');
    expect(circuit.state).toBe('closed');
    expect(call(circuit, 201)).toBe('sent');
    circuit.stop();
  });

  it('holds other calls while a trial is in flight, and a 401 to the trial keeps it open', () => {
    const { circuit, advance } = circuitWithClock();
    openIt(circuit);
    advance(TRIAL_MS);
    const trial = circuit.admit();
    expect(trial.go).toBe(true);
    advance(5 * TRIAL_MS); // a slow trial: nothing else leaves meanwhile
    expect(call(circuit, 200)).toBe('held');
    expect(circuit.jobHoldMs()).toBeGreaterThan(0);
    if (trial.go) trial.settle(401);
    expect(circuit.state).toBe('open');
    expect(circuit.pauseMsIfOpen()).toBe(TRIAL_MS);
    circuit.stop();
  });

  it('a trial stopped by us teaches nothing: the next call may try at once', () => {
    const { circuit, advance } = circuitWithClock();
    openIt(circuit);
    advance(TRIAL_MS);
    const trial = circuit.admit();
    if (trial.go) trial.cancel();
    expect(circuit.jobHoldMs()).toBeUndefined();
    expect(call(circuit, 200)).toBe('sent');
    expect(circuit.state).toBe('closed');
    circuit.stop();
  });

  it('answers of calls sent before it opened do not close it', () => {
    const { circuit } = circuitWithClock();
    const early = circuit.admit();
    openIt(circuit);
    if (early.go) early.settle(200);
    expect(circuit.state).toBe('open');
    circuit.stop();
  });

  it('forgets the old outage once closed: one more failed call does not open it again', () => {
    const { circuit, advance } = circuitWithClock();
    openIt(circuit);
    advance(TRIAL_MS);
    call(circuit, 200);
    expect(circuit.state).toBe('closed');
    call(circuit, 503);
    expect(circuit.state).toBe('closed');
    circuit.stop();
  });

  it('held longer than maxHoldMs, it alerts again, saying how long and what the last trial got', async () => {
    vi.useFakeTimers();
    try {
      const { circuit, alerts, lines, advance } = circuitWithClock(3 * TRIAL_MS);
      openIt(circuit);
      for (let i = 0; i < 7; i += 1) {
        advance(TRIAL_MS);
        call(circuit, 503);
        await vi.advanceTimersByTimeAsync(TRIAL_MS);
      }
      expect(alerts).toEqual(['ApiOutage', 'ApiOutage', 'ApiOutage']);
      const still = lines.filter((l) => l.event === 'worker.api_circuit_still_open');
      expect(still).toHaveLength(2);
      expect(still[0]).toMatchObject({ errorCode: 'ApiOutage', openMs: 3 * TRIAL_MS, lastTrialStatus: 503, lastTrialAgoMs: 0 });
      expect(still[0]?.msg).toContain('the last trial got HTTP 503');
      circuit.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds every call and every job of its API for the time a Retry-After named, closed or open, then lets them go', () => {
    const { circuit, advance } = circuitWithClock();
    circuit.holdFor(5000);
    expect(call(circuit, 200)).toBe('held');
    expect(circuit.jobHoldMs()).toBe(5000);
    advance(4000);
    expect(circuit.jobHoldMs()).toBe(1000);
    circuit.holdFor(500); // a shorter pause asked later does not end the longer one
    expect(circuit.jobHoldMs()).toBe(1000);
    advance(1000);
    expect(circuit.jobHoldMs()).toBeUndefined();
    expect(call(circuit, 200)).toBe('sent');
    expect(circuit.state).toBe('closed'); // held calls are no outage
    openIt(circuit);
    circuit.holdFor(60 * TRIAL_MS);
    advance(TRIAL_MS); // a trial would be due: the API's pause comes first
    expect(call(circuit, 200)).toBe('held');
    expect(circuit.jobHoldMs()).toBe(59 * TRIAL_MS);
  });
});
