import { describe, expect, it } from 'vitest';
import { HUNG_AFTER_MS, Liveness } from '../../src/runtime/listener-liveness.js';

describe('whether a listener process is hung', () => {
  it('a brief stall that three overlapping asks meet is not a hang', () => {
    const liveness = new Liveness();
    for (const at of [0, 10, 20]) liveness.asked(at);
    expect([1000, 1010, 1020].map((at) => liveness.missed(at))).toEqual([false, false, false]);
    liveness.answered(); // a late answer once the stall ends
    liveness.asked(1100);
    expect(liveness.missed(2100)).toBe(false);
  });

  it('no answer for HUNG_AFTER_MS while asked at least twice is a hang, judged once', () => {
    const liveness = new Liveness();
    liveness.asked(0);
    expect(liveness.missed(1000)).toBe(false);
    liveness.asked(HUNG_AFTER_MS - 1000);
    expect(liveness.missed(HUNG_AFTER_MS)).toBe(true);
    liveness.asked(HUNG_AFTER_MS + 10);
    expect(liveness.missed(HUNG_AFTER_MS + 1010)).toBe(false);
  });

  it('one ask left unanswered for long is not yet a hang', () => {
    const liveness = new Liveness();
    liveness.asked(0);
    expect(liveness.missed(HUNG_AFTER_MS * 2)).toBe(false);
  });

  it('an answer in between starts the wait again', () => {
    const liveness = new Liveness();
    liveness.asked(0);
    expect(liveness.missed(1000)).toBe(false);
    liveness.answered();
    liveness.asked(HUNG_AFTER_MS);
    expect(liveness.missed(HUNG_AFTER_MS + 1000)).toBe(false);
  });
});
