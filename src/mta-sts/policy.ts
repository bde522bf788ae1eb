// The MTA-STS policy file (RFC 8461 §3.2) built from MTA_STS_*: `version: STSv1`, the mode, one
// `mx:` line per name, `max_age`; lines end in CRLF. Its id for the `_mta-sts` TXT record is a
// digest of the text, so it changes exactly when the policy does (§3.1). Pure.
import { createHash } from 'node:crypto';
import type { PrivacySettings } from '../privacy-settings.js';

export type MtaStsSettings = NonNullable<PrivacySettings['mtaSts']>;

/** RFC 8461 §3.3: the policy is served at this path of https://mta-sts.<domain>/. */
export const MTA_STS_PATH = '/.well-known/mta-sts.txt';

export function mtaStsPolicyText(settings: MtaStsSettings): string {
  const lines = ['version: STSv1', `mode: ${settings.mode}`, ...settings.mx.map((mx) => `mx: ${mx}`), `max_age: ${settings.maxAgeSeconds}`];
  return `${lines.join('\r\n')}\r\n`;
}

/** RFC 8461 §3.1: id is 1–32 letters and digits; a digest of the policy text changes when the policy does. */
export function mtaStsPolicyId(settings: MtaStsSettings): string {
  return createHash('sha256').update(mtaStsPolicyText(settings)).digest('hex').slice(0, 20);
}

/** RFC 8461 §4.1: does a policy `mx` pattern (a name, or `*.` and a name) match this MX host? */
export function mxMatches(pattern: string, host: string): boolean {
  const h = host.toLowerCase().replace(/\.+$/, '');
  const p = pattern.toLowerCase();
  if (!p.startsWith('*.')) return h === p;
  const suffix = p.slice(1); // ".example.com": the wildcard stands for exactly one label
  return h.endsWith(suffix) && !h.slice(0, -suffix.length).includes('.') && h.length > suffix.length;
}
