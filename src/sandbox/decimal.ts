// Amounts as exact decimals (pure): a JSON number or a decimal string, compared by value, so
// `10.5`, `10.50` and `"10.500"` are the same amount and 0.1 + 0.2 is exactly 0.3. An amount is
// kept as an integer count of 10^-scale units, normalised (no trailing zeros in the fraction).

export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** At most this many fraction digits (the sandbox's own limit). */
export const MAX_FRACTION_DIGITS = 6;

const DECIMAL_TEXT = /^(-?)(\d{1,18})(?:\.(\d{1,18}))?$/;

/** The value of a JSON number or decimal string; undefined when it is neither (or uses an exponent). */
export function parseDecimal(value: unknown): Decimal | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (fraction.replace(/0+$/, '').length > MAX_FRACTION_DIGITS) return undefined;
  return normalise({ units: BigInt(`${sign}${whole}${fraction}`), scale: fraction.length });
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return normalise({ units: widen(a, scale) + widen(b, scale), scale });
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return normalise({ units: a.units * b.units, scale: a.scale + b.scale });
}

export function sameValue(a: Decimal, b: Decimal): boolean {
  return a.units === b.units && a.scale === b.scale; // both normalised
}

export function isPositive(a: Decimal): boolean {
  return a.units > 0n;
}

export function isNegative(a: Decimal): boolean {
  return a.units < 0n;
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

/** The canonical text, e.g. "10.5", "-0.25", "3". */
export function decimalText(a: Decimal): string {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const whole = digits.slice(0, digits.length - a.scale);
  const fraction = digits.slice(digits.length - a.scale);
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** As a JSON number for the answer (amounts this size and precision print exactly). */
export function decimalNumber(a: Decimal): number {
  return Number(decimalText(a));
}

function widen(a: Decimal, scale: number): bigint {
  return a.units * 10n ** BigInt(scale - a.scale);
}

function normalise(a: Decimal): Decimal {
  let { units, scale } = a;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}
