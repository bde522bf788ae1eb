// Sandbox sessions: 30 minutes on the injected clock. A refresh issues a new session and leaves
// the old one valid until its own expiry, so requests already in flight with it do not fail.
import { randomUUID } from 'node:crypto';

export const SESSION_TTL_MS = 30 * 60 * 1000;

export interface Session {
  readonly sessionId: string;
  readonly senderId: string;
  readonly validUntilMs: number;
}

export interface SessionCounts {
  readonly logins: number;
  readonly refreshes: number;
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #counts = new Map<string, { logins: number; refreshes: number }>();

  constructor(
    private readonly clock: () => number,
    /** How long a session lives from its login or refresh (the contract mode's choice). */
    private readonly ttlMs: number = SESSION_TTL_MS,
  ) {}

  /** A new session for a sender that has just logged in. */
  login(senderId: string): Session {
    this.#count(senderId).logins += 1;
    return this.#issue(senderId);
  }

  /** A new session for the holder of a valid one; undefined when `sessionId` is not valid. */
  refresh(sessionId: string): Session | undefined {
    const current = this.valid(sessionId);
    if (current === undefined) return undefined;
    this.#count(current.senderId).refreshes += 1;
    return this.#issue(current.senderId);
  }

  /** The session when it exists and has not expired. */
  valid(sessionId: string): Session | undefined {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return undefined;
    if (this.clock() >= session.validUntilMs) {
      this.#sessions.delete(sessionId);
      return undefined;
    }
    return session;
  }

  /** Forgets every session, as a restarted API would (tests of re-login). */
  forgetAll(): void {
    this.#sessions.clear();
  }

  counts(senderId: string): SessionCounts {
    const c = this.#counts.get(senderId);
    return { logins: c?.logins ?? 0, refreshes: c?.refreshes ?? 0 };
  }

  #issue(senderId: string): Session {
    this.#dropExpired();
    const session = { sessionId: randomUUID(), senderId, validUntilMs: this.clock() + this.ttlMs };
    this.#sessions.set(session.sessionId, session);
    return session;
  }

  #dropExpired(): void {
    const now = this.clock();
    for (const [id, session] of this.#sessions) {
      if (now >= session.validUntilMs) this.#sessions.delete(id);
    }
  }

  #count(senderId: string): { logins: number; refreshes: number } {
    const existing = this.#counts.get(senderId);
    if (existing !== undefined) return existing;
    const fresh = { logins: 0, refreshes: 0 };
    this.#counts.set(senderId, fresh);
    return fresh;
  }
}
