// Binds the authentication module to the listener: mailauth's findings judged by the policy,
// reduced to what the SMTP session needs (outcome, reason, per-check record, From, headers).
import { authenticateMessage } from '../auth/authenticate.js';
import { judgeAuthentication } from '../auth/verdict.js';
import { createDkimKeyCache } from '../fast-paths/index.js';
import type { DnsResolver } from '../net/resolver.js';
import type { Authenticate } from './receive-message.js';

export function createAuthenticator(resolver: DnsResolver): Authenticate {
  const keyCache = createDkimKeyCache(resolver); // one per listener: keys parsed once
  return async (message, ctx) => {
    const summary = await authenticateMessage(message, ctx, resolver, { keyCache });
    const verdict = judgeAuthentication(summary);
    const checks = Object.fromEntries(Object.entries(verdict.checks).map(([name, check]) => [name, `${check.outcome}: ${check.detail}`]));
    const [from, ...others] = summary.fromAddresses;
    return {
      outcome: verdict.outcome,
      reason: verdict.outcome === 'pass' ? 'authenticated' : verdict.reason,
      checks,
      from: from !== undefined && others.length === 0 ? from.toLowerCase() : '',
      headers: summary.headers,
    };
  };
}
