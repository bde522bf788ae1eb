import { describe, expect, it } from 'vitest';
import { judgeAcknowledgement, waitTimeoutMs } from '../../src/redis/replica-ack.js';

describe("the verdict on WAIT's count, for writes the waiting server holds", () => {
  it.each([
    [1, 1, { kind: 'acknowledged', replicas: 1 }],
    [2, 1, { kind: 'acknowledged', replicas: 2 }],
    [0, 1, { kind: 'short', replicas: 0, wanted: 1, elsewhere: false }],
    [1, 2, { kind: 'short', replicas: 1, wanted: 2, elsewhere: false }],
    [0, 0, { kind: 'acknowledged', replicas: 0 }],
  ])('%i replicas acknowledged of %i wanted: %o', (acknowledged, wanted, verdict) => {
    expect(judgeAcknowledgement(acknowledged, wanted, true)).toEqual(verdict);
  });
});

describe('the verdict when the waiting server lacks the writes (its mark was not there)', () => {
  it.each([
    [1, 1],
    [3, 2],
    [0, 1],
    [0, 0],
  ])('%i replicas acknowledged of %i wanted: short, no replica known to hold them', (acknowledged, wanted) => {
    expect(judgeAcknowledgement(acknowledged, wanted, false)).toEqual({ kind: 'short', replicas: 0, wanted, elsewhere: true });
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
