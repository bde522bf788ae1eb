import { describe, expect, it } from 'vitest';
import { quickExitsAfter, restartDelayMs, STABLE_RUN_MS } from '../../src/runtime/restart-backoff.js';

describe('restarting a listener process that died', () => {
  it.each([
    [1, 250],
    [2, 500],
    [3, 1000],
    [7, 16_000],
    [8, 30_000],
    [50, 30_000],
  ])('after %i quick exits in a row waits %i ms', (quickExits, delayMs) => {
    expect(restartDelayMs(quickExits)).toBe(delayMs);
  });

  it('counts an exit after a short run as one more in a row, and one after a stable run as the first', () => {
    expect(quickExitsAfter(3, 1000)).toBe(4);
    expect(quickExitsAfter(3, STABLE_RUN_MS - 1)).toBe(4);
    expect(quickExitsAfter(3, STABLE_RUN_MS)).toBe(1);
    expect(quickExitsAfter(0, 0)).toBe(1);
  });
});
