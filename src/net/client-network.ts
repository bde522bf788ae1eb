// Which network a client address belongs to, for limits per client: an IPv4-mapped IPv6 address
// (`::ffff:a.b.c.d`, how a dual-stack socket reports an IPv4 client) is the IPv4 address it maps,
// so one client cannot count as two; an IPv6 address is cut to a prefix (a /64 is one site's
// subnet: an attacker holds every address in it, so counting per address would count nothing).
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The address as counted: an IPv4-mapped IPv6 address becomes its IPv4 address; a zone id is dropped. */
export function normalizeAddress(address: string): string {
  const bare = address.trim().replace(/%.*$/, '');
  const mapped = MAPPED_V4.exec(bare);
  if (mapped?.[1] !== undefined && isIPv4(mapped[1])) return mapped[1];
  return bare.toLowerCase();
}

export interface NetworkPrefixes {
  /** Leading bits of an IPv4 address that name its network (32: the address itself). */
  readonly v4Bits: number;
  /** Leading bits of an IPv6 address that name its network (64: one subnet). */
  readonly v6Bits: number;
}

/**
 * "192.0.2.0/24", "2001:db8:0:1::/64": the network of `address` under `prefixes`, after
 * normalizeAddress. Text that is not an IP address (a test's fake, a proxy's odd header) is
 * returned as it is: it is still one key, and never an error.
 */
export function networkOf(address: string, prefixes: NetworkPrefixes): string {
  const normalized = normalizeAddress(address);
  if (isIPv4(normalized)) {
    const bytes = normalized.split('.').map(Number);
    return `${maskBytes(bytes, prefixes.v4Bits, 8).join('.')}/${prefixes.v4Bits}`;
  }
  const groups = isIPv6(normalized) ? ipv6Groups(normalized) : undefined;
  if (groups === undefined) return normalized;
  const masked = maskBytes(groups, prefixes.v6Bits, 16);
  return `${compressIpv6(masked)}/${prefixes.v6Bits}`;
}

/** Keeps the first `bits` of words `width` bits wide, zeroing the rest. */
function maskBytes(words: readonly number[], bits: number, width: number): number[] {
  return words.map((word, i) => {
    const keep = Math.max(0, Math.min(width, bits - i * width));
    if (keep === 0) return 0;
    const mask = ((1 << keep) - 1) << (width - keep);
    return word & mask;
  });
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a trailing dotted IPv4 part). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  const groups = tail === undefined ? front : [...front, ...new Array<number>(missing).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** RFC 5952 §4.2: the longest run of two or more zero groups becomes `::`. */
function compressIpv6(groups: readonly number[]): string {
  let bestAt = -1;
  let bestLength = 1;
  for (let at = 0; at < groups.length; ) {
    if (groups[at] !== 0) {
      at += 1;
      continue;
    }
    let end = at;
    while (end < groups.length && groups[end] === 0) end += 1;
    if (end - at > bestLength) {
      bestAt = at;
      bestLength = end - at;
    }
    at = end;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestAt < 0) return hex.join(':');
  return `${hex.slice(0, bestAt).join(':')}::${hex.slice(bestAt + bestLength).join(':')}`;
}
