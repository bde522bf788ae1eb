// When to reuse, refresh or replace a cached session, and when a session ends (pure).
import { parseApiDateTime } from './api-datetime.js';

export type SessionAction = 'use' | 'refresh' | 'login';

export const DEFAULT_REFRESH_MARGIN_MS = 60_000;

/** The contract's session length: a session is never trusted longer than this from its login or refresh. */
export const ASSUMED_SESSION_MS = 30 * 60_000;

/**
 * No session or an ended one → log in; inside the safety margin before its end (`endsAtMs`) → refresh
 * (the old session is still good for the refresh call itself); otherwise use it.
 */
export function sessionAction(session: { readonly endsAtMs: number } | undefined, nowMs: number, marginMs: number): SessionAction {
  if (session === undefined || nowMs >= session.endsAtMs) return 'login';
  if (nowMs >= session.endsAtMs - marginMs) return 'refresh';
  return 'use';
}

/**
 * When a session got at `requestedAtMs` (our clock, when the login or refresh was sent) ends:
 * the earlier of the API's `validUntilUtc` and our own 30 minutes. A missing or unreadable
 * `validUntilUtc` means our 30 minutes.
 */
export function sessionEndMs(validUntilUtc: unknown, requestedAtMs: number): number {
  const ours = requestedAtMs + ASSUMED_SESSION_MS;
  const theirs = typeof validUntilUtc === 'string' ? parseApiDateTime(validUntilUtc) : undefined;
  return theirs === undefined ? ours : Math.min(theirs, ours);
}
