import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type CallRecord, createApiCircuit, isOutage, judgeCircuit } from '../../src/worker/api-circuit.js';

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

describe('createApiCircuit', () => {
  it('opens on an outage, pauses the queue, alerts; probes until the API answers, then closes', async () => {
    vi.useFakeTimers();
    try {
      const pauses: number[] = [];
      const alerts: string[] = [];
      const answers = [false, false, true];
      const circuit = createApiCircuit({
        policy,
        probeIntervalMs: 1000,
        probe: async () => answers.shift() ?? true,
        pause: async (ms) => void pauses.push(ms),
        clock: () => NOW,
        logger: createLogger({ level: 'silent' }),
        observer: { operatorAlert: (code) => alerts.push(code) },
      });
      for (const status of [503, 503, 400, undefined]) circuit.record(status);
      expect(circuit.state).toBe('closed');
      expect(circuit.pauseMsIfOpen()).toBeUndefined();
      circuit.record(502);
      expect(circuit.state).toBe('open');
      expect(circuit.pauseMsIfOpen()).toBe(2000);
      expect(alerts).toEqual(['ApiOutage']);
      expect(pauses).toEqual([2000]);

      await vi.advanceTimersByTimeAsync(1000); // first probe: no answer
      expect(circuit.state).toBe('open');
      expect(pauses).toEqual([2000, 2000]);
      await vi.advanceTimersByTimeAsync(1000); // second: no answer
      await vi.advanceTimersByTimeAsync(1000); // third: answered
      expect(circuit.state).toBe('closed');
      expect(pauses).toHaveLength(3);
      // The old outage is forgotten: one more failed call does not open it again.
      circuit.record(503);
      expect(circuit.state).toBe('closed');
      circuit.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
