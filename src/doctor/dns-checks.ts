// DNS as senders' mail depends on it: the inbound domain's MX reaches this listener, each sender
// domain publishes SPF, and the DKIM keys its recent mail was signed with are still there. An
// operator sees which sender will be refused before its mail arrives.
import { type Lookup, mxExchanges, normalizeHost, txtStrings } from './dns-lookup.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'DNS';

const failure = (l: Extract<Lookup, { kind: 'error' }>): string => `lookup failed (${l.code}); try again, or check the name servers`;

export function judgeMx(domain: string, hostname: string, answer: Lookup): CheckResult {
  const name = `MX of ${domain}`;
  if (answer.kind === 'error') return warn(AREA, name, failure(answer));
  if (answer.kind === 'none') return fail(AREA, name, `no MX record: senders cannot reach the gateway; publish MX ${domain} → ${hostname}`);
  const exchanges = mxExchanges(answer.records);
  if (exchanges.includes(normalizeHost(hostname))) return ok(AREA, name, `→ ${exchanges.join(', ')}`);
  return fail(
    AREA,
    name,
    `→ ${exchanges.join(', ')}, not SMTP_HOSTNAME ${hostname}: mail goes elsewhere; point the MX at ${hostname} (or fix SMTP_HOSTNAME)`,
  );
}

/** The SPF record of a domain (RFC 7208 §4.5: exactly one `v=spf1` record). */
export function judgeSpf(domain: string, addresses: readonly string[], answer: Lookup): CheckResult {
  const name = `SPF of ${domain}`;
  const who = addresses.join(', ');
  if (answer.kind === 'error') return warn(AREA, name, `${failure(answer)}; mail from ${who} is answered 451 meanwhile`);
  const spf = answer.kind === 'none' ? [] : txtStrings(answer.records).filter((t) => /^v=spf1(\s|$)/i.test(t));
  if (spf.length === 0) return fail(AREA, name, `no SPF record: mail from ${who} will be refused (550 5.7.1); the sender must publish one`);
  if (spf.length > 1)
    return fail(AREA, name, `${spf.length} SPF records (permerror): mail from ${who} will be refused; the sender must keep one`);
  return ok(AREA, name, spf[0] ?? '');
}

/** A DKIM key under a selector (RFC 6376 §3.6.1: an empty p= means the key was revoked). */
export function judgeDkimKey(domain: string, selector: string, answer: Lookup): CheckResult {
  const name = `DKIM key ${selector}._domainkey.${domain}`;
  if (answer.kind === 'error') return warn(AREA, name, failure(answer));
  const key = answer.kind === 'none' ? undefined : txtStrings(answer.records).find((t) => /(^|;)\s*p=/.test(t));
  if (key === undefined)
    return fail(
      AREA,
      name,
      `gone: mail signed with s=${selector} will be refused (550 5.7.1); the sender must publish the key or sign with another selector`,
    );
  if (/(^|;)\s*p=\s*(;|$)/.test(key)) return fail(AREA, name, `revoked (empty p=): mail signed with s=${selector} will be refused`);
  return ok(AREA, name, 'published');
}

export function noRecentSelectors(domain: string): CheckResult {
  return warn(AREA, `DKIM keys of ${domain}`, 'no recent intakes signed by this domain, so no selector to check yet');
}

/** Signing domain and selector pairs in intake records' DKIM check ("… d=acme.example s=rsa2048 …"). */
export function selectorsIn(dkimChecks: readonly string[]): Map<string, Set<string>> {
  const byDomain = new Map<string, Set<string>>();
  for (const text of dkimChecks) {
    for (const match of text.matchAll(/\bd=([^\s,;]+) s=([^\s,;]+)/g)) {
      const domain = normalizeHost(match[1] ?? '');
      const selector = (match[2] ?? '').toLowerCase();
      if (domain === '' || selector === '') continue;
      const set = byDomain.get(domain) ?? new Set<string>();
      set.add(selector);
      byDomain.set(domain, set);
    }
  }
  return byDomain;
}
