// Amounts compared by value, exactly (pure).
import { describe, expect, it } from 'vitest';
import { add, decimalText, multiply, parseDecimal, sameValue } from '../../src/sandbox/decimal.js';

const d = (value: unknown) => {
  const parsed = parseDecimal(value);
  if (parsed === undefined) throw new Error(`not a decimal: ${String(value)}`);
  return parsed;
};

describe('decimals', () => {
  it.each([
    [10.5, '10.50'],
    ['10.500', 10.5],
    ['0003', 3],
    ['-0.25', -0.25],
  ] as const)('%j has the same value as %j', (a, b) => {
    expect(sameValue(d(a), d(b))).toBe(true);
  });

  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(decimalText(add(d(0.1), d('0.2')))).toBe('0.3');
  });

  it('multiplies 3 by 120.40 to 361.2', () => {
    expect(decimalText(multiply(d(3), d('120.40')))).toBe('361.2');
  });

  it.each(['1e3', 'ten', '', '1.2.3', '1.0000001', Number.NaN, null, true])('refuses %j', (value) => {
    expect(parseDecimal(value)).toBeUndefined();
  });
});
