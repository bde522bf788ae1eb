// What every doctor check returns: a pure verdict, one line of why and what to do. The checks
// gather facts at the edges and judge them with pure functions; one printer shows them all.

/** ok ✓, warn ! (works, with a consequence to know), fail ✗ (fix before relying on it). */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** The area the check belongs to (Redis, Sender API, DNS, TLS, …): the printer groups by it. */
  readonly area: string;
  readonly status: CheckStatus;
  /** What was checked, in a few words. */
  readonly name: string;
  /** One line: what was found and, unless ok, what to do. */
  readonly detail: string;
}

export const ok = (area: string, name: string, detail: string): CheckResult => ({ area, status: 'ok', name, detail });
export const warn = (area: string, name: string, detail: string): CheckResult => ({ area, status: 'warn', name, detail });
export const fail = (area: string, name: string, detail: string): CheckResult => ({ area, status: 'fail', name, detail });

/** Non-zero when any check failed (warnings alone do not fail the run). */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
