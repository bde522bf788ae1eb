// Messages refused in the SMTP session because they failed authentication (SPF, DKIM, alignment,
// the From header: docs/design.md §2.3), so an operator asked "why did Acme's letter bounce?"
// finds them as rule refusals are found. Their own record beside the rules' (session-refusals.ts),
// with its own budget: anyone can send mail that fails SPF in anyone's name, so the From shown is
// only what the message claims, one client network adds at most a few records a minute, and the
// record is kept a week.
import type { RedisClient } from '../redis/connections.js';
import { type RefusalBudget, SessionRefusals } from './session-refusals.js';

/** A week: long enough for a sender's "my letter bounced last Tuesday". */
export const AUTH_REFUSAL_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Its bytes are REFUSED_MAX_BYTES's (the factory's default is that default); the rules' record has as much again. */
export const AUTH_REFUSAL_BUDGET: RefusalBudget = {
  name: 'refused-auth',
  maxBytes: 16 * 1024 * 1024,
  perNetworkPerHour: 5,
  windowMs: 60_000,
};

export function authRefusals(redis: RedisClient, prefix: string, maxBytes = AUTH_REFUSAL_BUDGET.maxBytes): SessionRefusals {
  return new SessionRefusals(redis, prefix, AUTH_REFUSAL_RETENTION_MS, { ...AUTH_REFUSAL_BUDGET, maxBytes });
}

/** The checks an authentication refusal is recorded under, in the order they are judged. */
export const AUTH_CHECK_NAMES: Readonly<Record<string, string>> = { from: 'From', spf: 'SPF', alignment: 'alignment', dkim: 'DKIM' };

/** The failed checks of a decision ("SPF, alignment"), from its per-check record ("fail: …"). */
export function failedChecks(checks: Readonly<Record<string, string>>): string {
  const failed = Object.entries(AUTH_CHECK_NAMES).flatMap(([key, name]) => (checks[key]?.startsWith('fail') === true ? [name] : []));
  return failed.length === 0 ? 'authentication' : failed.join(', ');
}
