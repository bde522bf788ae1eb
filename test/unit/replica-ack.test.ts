import { describe, expect, it } from 'vitest';
import { judgeAcknowledgement, waitTimeoutMs } from '../../src/redis/replica-ack.js';

describe("the verdict on WAIT's count", () => {
  it.each([
    [1, 1, { kind: 'acknowledged', replicas: 1 }],
    [2, 1, { kind: 'acknowledged', replicas: 2 }],
    [0, 1, { kind: 'short', replicas: 0, wanted: 1 }],
    [1, 2, { kind: 'short', replicas: 1, wanted: 2 }],
    [0, 0, { kind: 'acknowledged', replicas: 0 }],
  ])('%i replicas acknowledged of %i wanted: %o', (acknowledged, wanted, verdict) => {
    expect(judgeAcknowledgement(acknowledged, wanted)).toEqual(verdict);
  });
});

describe("WAIT's time-out", () => {
  it.each([
    [4999.7, 4999],
    [1, 1],
    // WAIT n 0 would block for ever: a deadline already reached still waits 1 ms, not for ever
    [0.4, 1],
    [0, 1],
    [-250, 1],
  ])('is %d ms left → WAIT for %i ms', (remaining, timeout) => {
    expect(waitTimeoutMs(remaining)).toBe(timeout);
  });
});
