import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../src/worker/backoff.js';

const policy = { baseMs: 1000, capMs: 60_000 };

describe('retry backoff', () => {
  it.each([
    [1, 0, 500],
    [1, 0.999, 1000],
    [2, 0, 1000],
    [3, 0.5, 3000],
    [7, 0, 30_000],
    [8, 0, 30_000],
    [30, 0.999, 59_970],
  ])('attempt %i with random %f waits %i ms', (attempt, random, expected) => {
    expect(backoffDelayMs(attempt, policy, random)).toBe(expected);
  });

  it('never exceeds the cap, whatever the attempt', () => {
    for (let attempt = 1; attempt < 100; attempt += 1) expect(backoffDelayMs(attempt, policy, 0.9999)).toBeLessThanOrEqual(60_000);
  });
});
