// The self-test's SMTP replies (docs/sender-policy.md), from the authentication checks. Pure.
// A pass names the findings in one line; a failure names every check in a line of its own, so the
// sender's own MTA bounces the answer back. Neither says whether the From is a registered sender.
import { AUTH_CHECK_NAMES } from '../intake/auth-refusals.js';

const outcomeOf = (check: string | undefined) => check?.split(':')[0] ?? 'none';

/** "DKIM pass (acme.example s=rsa2048)" from "pass: DKIM pass for d=acme.example s=rsa2048, aligned …". */
function dkimWords(check: string | undefined): string {
  const found = /d=(\S+) s=([^\s,]+)/.exec(check ?? '');
  const outcome = outcomeOf(check);
  return found === null ? `DKIM ${outcome}` : `DKIM ${outcome} (${found[1] ?? ''} s=${found[2] ?? ''})`;
}

/** "self-test st…: SPF pass, DKIM pass (acme.example s=rsa2048), aligned; report mailed to the From address" */
export function passReply(id: string, checks: Readonly<Record<string, string>>): string {
  const aligned = outcomeOf(checks.alignment) === 'pass' ? 'aligned' : `alignment ${outcomeOf(checks.alignment)}`;
  return `2.0.0 self-test ${id}: SPF ${outcomeOf(checks.spf)}, ${dkimWords(checks.dkim)}, ${aligned}; a report follows to the From address`;
}

/** The lines of a failed self-test: what failed first, then each check's finding. */
export function failLines(checks: Readonly<Record<string, string>>): string[] {
  const failed = Object.entries(AUTH_CHECK_NAMES).flatMap(([key, name]) => (outcomeOf(checks[key]) === 'fail' ? [name] : []));
  const findings = Object.entries(AUTH_CHECK_NAMES).map(([key, name]) => `${name}: ${checks[key] ?? 'not judged'}`);
  return [`self-test: failed ${failed.length === 0 ? 'authentication' : failed.join(', ')}; nothing is mailed`, ...findings];
}
