import { describe, expect, it } from 'vitest';
import { budgetShareBytes, MemoryBudget } from '../../src/smtp/memory-budget.js';

describe('the listener memory budget', () => {
  it('grants reservations up to the limit and refuses the one past it, unchanged', () => {
    const budget = new MemoryBudget(100, 10);
    const a = budget.open();
    const b = budget.open();
    expect(a.resize(60)).toBe(true);
    expect(b.resize(41)).toBe(false);
    expect(budget.usedBytes).toBe(60);
    expect(b.resize(40)).toBe(true);
    expect(budget.usedBytes).toBe(100);
  });

  it('always lets a reservation shrink, and frees it whole on release', () => {
    const budget = new MemoryBudget(100, 10);
    const a = budget.open();
    a.resize(90);
    expect(a.resize(30)).toBe(true);
    expect(budget.usedBytes).toBe(30);
    a.release();
    a.release();
    expect(budget.usedBytes).toBe(0);
  });

  it('admits a new transaction only while the admission room is free', () => {
    const budget = new MemoryBudget(100, 10);
    const a = budget.open();
    a.resize(90);
    expect(budget.admits()).toBe(true);
    a.resize(91);
    expect(budget.admits()).toBe(false);
  });
});

describe('the share of one listener process', () => {
  it.each([
    [128 * 1024 * 1024, 1, 128 * 1024 * 1024],
    [128 * 1024 * 1024, 2, 64 * 1024 * 1024],
    [100, 3, 33],
  ])('of %i bytes over %i processes is %i bytes', (limitBytes, processes, share) => {
    expect(budgetShareBytes(limitBytes, processes)).toBe(share);
  });
});
