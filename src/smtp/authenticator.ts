// Binds the authentication module to the listener: mailauth's findings judged by the policy,
// reduced to what the SMTP session needs (outcome, reason, per-check record, From, headers).
import { authenticateMessage } from '../auth/authenticate.js';
import { selectorFindings } from '../auth/selector-findings.js';
import { DEFAULT_AUTH_POLICY, judgeAuthentication } from '../auth/verdict.js';
import { createDkimKeyCache } from '../fast-paths/index.js';
import type { DnsResolver } from '../net/resolver.js';
import type { Authenticate } from './receive-message.js';

/** The DKIM selectors the sender of this From address lists (lower-cased), if it lists any. */
export type SelectorsOf = (fromAddress: string) => readonly string[] | undefined;

export function createAuthenticator(resolver: DnsResolver, selectorsOf: SelectorsOf = () => undefined): Authenticate {
  const keyCache = createDkimKeyCache(resolver); // one per listener: keys parsed once
  return async (message, ctx) => {
    const summary = await authenticateMessage(message, ctx, resolver, { keyCache });
    const [from, ...others] = summary.fromAddresses;
    const single = from !== undefined && others.length === 0 ? from.toLowerCase() : '';
    const selectors = single === '' ? undefined : selectorsOf(single);
    const verdict = judgeAuthentication(summary, { ...DEFAULT_AUTH_POLICY, dkimSelectors: selectors });
    const checks = Object.fromEntries(Object.entries(verdict.checks).map(([name, check]) => [name, `${check.outcome}: ${check.detail}`]));
    return {
      outcome: verdict.outcome,
      reason: verdict.outcome === 'pass' ? 'authenticated' : verdict.reason,
      checks,
      from: single,
      headers: summary.headers,
      ...(selectors === undefined ? {} : { dkimSelectors: selectorFindings(summary.dkim, selectors) }),
    };
  };
}
