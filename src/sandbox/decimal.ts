// Amounts as exact decimals (pure), for the sandbox's consistency warnings on receipts: a JSON
// number's value as written, so 0.1 + 0.2 is exactly 0.3 and 10.5 equals 10.50. An amount is an
// integer count of 10^-scale units, normalised (no trailing zeros in the fraction). Amounts are
// stored and answered as sent; this module only compares them.

export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^(-?)(\d{1,18})(?:\.(\d{1,18}))?$/;

/** The value of a JSON number as JavaScript prints it; undefined when it prints with an exponent (too large or too small to compare here). */
export function parseDecimal(value: number): Decimal | undefined {
  const match = DECIMAL_TEXT.exec(Number.isFinite(value) ? String(value) : '');
  if (match === null) return undefined;
  const [, sign = '', whole = '0', fraction = ''] = match;
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

export const ZERO: Decimal = { units: 0n, scale: 0 };

/** The canonical text, e.g. "10.5", "-0.25", "3". */
export function decimalText(a: Decimal): string {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const whole = digits.slice(0, digits.length - a.scale);
  const fraction = digits.slice(digits.length - a.scale);
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
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
