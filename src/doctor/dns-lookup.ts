// One DNS answer as the checks judge it: records, none (NXDOMAIN / no data), or a failure.
import type { DnsResolver } from '../net/resolver.js';

export type Lookup =
  | { readonly kind: 'answer'; readonly records: readonly unknown[] }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly code: string };

export async function lookup(resolver: DnsResolver, name: string, rrtype: string): Promise<Lookup> {
  try {
    const answer = await resolver(name, rrtype);
    const records = Array.isArray(answer) ? answer : [];
    return records.length === 0 ? { kind: 'none' } : { kind: 'answer', records };
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'ERROR';
    return code === 'ENOTFOUND' || code === 'ENODATA' ? { kind: 'none' } : { kind: 'error', code };
  }
}

/** TXT records with their character-strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
export function txtStrings(records: readonly unknown[]): string[] {
  return records.map((r) => (Array.isArray(r) ? r.map(String).join('') : String(r)));
}

/** MX exchanges, lower-cased without the root dot. */
export function mxExchanges(records: readonly unknown[]): string[] {
  return records.flatMap((r) => {
    if (typeof r !== 'object' || r === null || !('exchange' in r)) return [];
    return [normalizeHost(String(r.exchange))];
  });
}

export function normalizeHost(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}
