// Amounts compared by value, exactly (pure): what the receipt consistency warnings rest on.
import { describe, expect, it } from 'vitest';
import { add, decimalText, multiply, parseDecimal, sameValue } from '../../src/sandbox/decimal.js';

const d = (value: number) => {
  const parsed = parseDecimal(value);
  if (parsed === undefined) throw new Error(`not comparable: ${value}`);
  return parsed;
};

describe('decimals', () => {
  it.each([
    [10.5, 10.5],
    [100, 100.0],
    [-0.25, -0.25],
  ] as const)('%j has the same value as %j', (a, b) => {
    expect(sameValue(d(a), d(b))).toBe(true);
  });

  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(decimalText(add(d(0.1), d(0.2)))).toBe('0.3');
  });

  it('multiplies 3 by 120.40 to 361.2', () => {
    expect(decimalText(multiply(d(3), d(120.4)))).toBe('361.2');
  });

  it('tells 0.31 from 0.3', () => {
    expect(sameValue(d(0.31), d(0.3))).toBe(false);
  });

  it.each([1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY])('leaves %j out (it prints with an exponent or is not finite)', (value) => {
    expect(parseDecimal(value)).toBeUndefined();
  });
});
