// A datetime as the Sender API may write it. The contract calls it "an ISO 8601 UTC timestamp"
// and shows no more, so any ISO 8601 date-time is read (pure): with `Z`, with an offset (honoured),
// or with no zone at all (then UTC, as a .NET or Java UTC DateTime is often written), with any
// number of fraction digits (`2026-11-25T13:42:56.1234567`). Digits past milliseconds are dropped.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Milliseconds since the epoch, or undefined when `text` is not an ISO 8601 date-time. */
export function parseApiDateTime(text: string): number | undefined {
  const match = DATE_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number);
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0] = fields;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return undefined;
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCDate() !== d) return undefined; // 2026-02-30
  return utc - offsetMs(zone);
}

function offsetMs(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  return sign * (hours * 60 + minutes) * 60_000;
}
