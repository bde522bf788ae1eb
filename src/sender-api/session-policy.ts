// When to reuse, refresh or replace a cached session (pure).
export type SessionAction = 'use' | 'refresh' | 'login';

export const DEFAULT_REFRESH_MARGIN_MS = 60_000;

/**
 * No session or an expired one → log in; inside the safety margin before `validUntil` → refresh
 * (the old session is still good for the refresh call itself); otherwise use it.
 */
export function sessionAction(session: { readonly validUntilMs: number } | undefined, nowMs: number, marginMs: number): SessionAction {
  if (session === undefined || nowMs >= session.validUntilMs) return 'login';
  if (nowMs >= session.validUntilMs - marginMs) return 'refresh';
  return 'use';
}
