// Whether a caller's IP lies in a sender's `allowedIps` ranges (CIDR, IPv4 and IPv6).
// An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, what a dual-stack socket reports) counts as
// its IPv4 address. A range that does not parse never matches (fail closed).
import { BlockList, isIP } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:a.b.c.d` → `a.b.c.d`; anything else unchanged. */
export function normalizeIp(ip: string): string {
  const mapped = MAPPED_V4.exec(ip);
  return mapped?.[1] ?? ip;
}

/** Undefined ranges mean "no restriction"; an empty list admits nobody. */
export function isIpAllowed(ip: string, ranges: readonly string[] | undefined): boolean {
  if (ranges === undefined) return true;
  const address = normalizeIp(ip);
  const family = isIP(address);
  if (family === 0) return false;
  const list = new BlockList();
  for (const range of ranges) {
    const parsed = parseCidr(range);
    if (parsed !== undefined) list.addSubnet(parsed.network, parsed.prefix, parsed.type);
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

interface Cidr {
  readonly network: string;
  readonly prefix: number;
  readonly type: 'ipv4' | 'ipv6';
}

function parseCidr(range: string): Cidr | undefined {
  const slash = range.lastIndexOf('/');
  if (slash < 0) return undefined;
  const written = range.slice(0, slash);
  const prefixText = range.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const network = normalizeIp(written);
  // ::ffff:a.b.c.d/n (n ≥ 96) is the IPv4 range a.b.c.d/(n − 96).
  const prefix = network === written ? Number(prefixText) : Number(prefixText) - 96;
  if (prefix < 0) return undefined;
  const family = isIP(network);
  if (family === 4 && prefix <= 32) return { network, prefix, type: 'ipv4' };
  if (family === 6 && prefix <= 128) return { network, prefix, type: 'ipv6' };
  return undefined;
}
