// The self-test's SMTP replies (docs/sender-policy.md), from the authentication checks. Pure.
// A pass names the findings in one line; a failure names every check in a line of its own, so the
// sender's own MTA bounces the answer back. A failure says nothing of the sender directory, so it
// never tells whether the From is a registered sender.
import type { SelectorFindings } from '../auth/selector-findings.js';
import { AUTH_CHECK_NAMES } from '../intake/auth-refusals.js';

const outcomeOf = (check: string | undefined) => check?.split(':')[0] ?? 'none';

/**
 * "DKIM pass (acme.example s=rsa2048)" from "pass: DKIM pass for d=acme.example s=rsa2048, aligned …";
 * with pinned selectors "… s=rsa2048, listed; not listed: s=ed25519)".
 */
function dkimWords(check: string | undefined, selectors: SelectorFindings | undefined): string {
  const found = /d=(\S+) s=([^\s,]+)/.exec(check ?? '');
  const outcome = outcomeOf(check);
  if (found === null) return `DKIM ${outcome}`;
  const unlisted = [...new Set((selectors?.signatures ?? []).filter((s) => !s.listed).map((s) => `s=${s.selector}`))];
  // At most three named: the reply stays one short line however many signatures a message carries.
  const named = unlisted.length > 3 ? [...unlisted.slice(0, 3), `and ${unlisted.length - 3} more`] : unlisted;
  const pinning = selectors === undefined ? '' : `, listed${named.length === 0 ? '' : `; not listed: ${named.join(' ')}`}`;
  return `DKIM ${outcome} (${found[1] ?? ''} s=${found[2] ?? ''}${pinning})`;
}

/**
 * A failed self-test was not authenticated, so its reply says nothing the sender directory knows:
 * the selectors a sender lists would tell a stranger that the From is registered. The DKIM finding
 * keeps the signatures the message itself carries and drops what was listed.
 */
export function withoutDirectory(finding: string): string {
  return finding
    .replace(/ with a selector the sender lists \(listed: [^;]*; found: /, ' (found: ')
    .replace(/, selector \S+ not listed/g, '');
}

/** "self-test st…: SPF pass, DKIM pass (acme.example s=rsa2048), aligned; report mailed to the From address" */
export function passReply(id: string, checks: Readonly<Record<string, string>>, selectors?: SelectorFindings): string {
  const aligned = outcomeOf(checks.alignment) === 'pass' ? 'aligned' : `alignment ${outcomeOf(checks.alignment)}`;
  return `2.0.0 self-test ${id}: SPF ${outcomeOf(checks.spf)}, ${dkimWords(checks.dkim, selectors)}, ${aligned}; a report follows to the From address`;
}

/** The lines of a failed self-test: what failed first, then each check's finding. */
export function failLines(checks: Readonly<Record<string, string>>): string[] {
  const failed = Object.entries(AUTH_CHECK_NAMES).flatMap(([key, name]) => (outcomeOf(checks[key]) === 'fail' ? [name] : []));
  const findings = Object.entries(AUTH_CHECK_NAMES).map(([key, name]) => `${name}: ${withoutDirectory(checks[key] ?? 'not judged')}`);
  return [`self-test: failed ${failed.length === 0 ? 'authentication' : failed.join(', ')}; nothing is mailed`, ...findings];
}
