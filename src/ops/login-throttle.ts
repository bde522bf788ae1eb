// Failed admin logins, slowed down or refused so that passwords cannot be guessed at full speed
// (docs/design.md §15). Two ways, chosen by what the gateway knows of its callers:
// - behind proxies it trusts (OPS_HTTP_TRUSTED_PROXIES), a caller's own address is known: an address
//   with too many recent failures is refused (429) until its window ends. Counting by the socket
//   address behind a TLS proxy would count every attempt against the proxy, and one attacker
//   would lock every admin out.
// - otherwise the address may be a proxy's, so failures are counted per user name (the
//   configured one, or any other), and each attempt under a name with recent failures waits an
//   increasing delay before it is checked, a right one included (a delay on failures alone would
//   say "wrong" by its length). Never a lock-out: the right login still gets in.
//   Attempts made in parallel under one name take turns: each reserves its check time when it
//   arrives, one delay after the turn before it (counting the attempts still waiting as failures),
//   so N parallel guesses are checked no faster than N guesses one after another. At most
//   maxWaiting attempts may wait under a name; past them the answer is 429 until the last turn
//   taken, which bounds both the guessing rate and the sockets held.
// Outcomes are values; the clock is injected, and the maps are bounded.

export interface LoginThrottlePolicy {
  /** Failures an address may have within the window before it is refused (per address). */
  readonly maxFailures: number;
  /** A failure counts this long after the last one. */
  readonly windowMs: number;
  /** Failures under a name that cost nothing; the next waits baseDelayMs, then twice as long each. */
  readonly freeFailures: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Keys tracked at most (addresses): past it the stalest is forgotten. */
  readonly maxKeys: number;
  /** Attempts under one name that may wait their turn at once; past them 429 (per user name). */
  readonly maxWaiting: number;
}

export const LOGIN_THROTTLE_POLICY: LoginThrottlePolicy = {
  maxFailures: 10,
  windowMs: 15 * 60 * 1000,
  freeFailures: 3,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  maxKeys: 10_000,
  maxWaiting: 4,
};

export type LoginGate = { readonly kind: 'check'; readonly delayMs: number } | { readonly kind: 'refuse'; readonly retryAfterMs: number };

interface Failures {
  count: number;
  last: number;
}

/** The attempts under one name between their gate and their outcome, and the last turn taken. */
interface Turns {
  waiting: number;
  lastAt: number;
}

export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();
  /** Per user name only (two keys), and only while attempts are under way. */
  private readonly turns = new Map<string, Turns>();

  constructor(
    readonly mode: 'per-address' | 'per-user',
    private readonly clock: () => number,
    private readonly policy: LoginThrottlePolicy = LOGIN_THROTTLE_POLICY,
  ) {}

  /**
   * Before the credentials are checked: go ahead (perhaps after a delay), or refuse. Per user
   * name a `check` takes a turn, which the caller ends with failed() or succeeded().
   */
  gate(key: string): LoginGate {
    const failures = this.current(key);
    if (this.mode === 'per-address') {
      if (failures === undefined || failures.count < this.policy.maxFailures) return { kind: 'check', delayMs: 0 };
      return { kind: 'refuse', retryAfterMs: failures.last + this.policy.windowMs - this.clock() };
    }
    const now = this.clock();
    const turns = this.turns.get(key) ?? { waiting: 0, lastAt: now };
    if (turns.waiting >= this.policy.maxWaiting) return { kind: 'refuse', retryAfterMs: turns.lastAt - now };
    // the attempts still waiting count as failures: an attempt never waits less than it would after them
    const at = Math.max(now, turns.lastAt) + this.delayAfter((failures?.count ?? 0) + turns.waiting);
    this.turns.set(key, { waiting: turns.waiting + 1, lastAt: at });
    return { kind: 'check', delayMs: at - now };
  }

  private delayAfter(failureCount: number): number {
    const over = failureCount - this.policy.freeFailures;
    if (over < 0) return 0;
    return Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.min(over, 30));
  }

  failed(key: string): void {
    this.endTurn(key);
    const now = this.clock();
    const failures = this.current(key) ?? { count: 0, last: now };
    failures.count += 1;
    failures.last = now;
    this.failures.delete(key); // re-inserted last: the map's order is staleness
    this.failures.set(key, failures);
    if (this.failures.size > this.policy.maxKeys) {
      const stalest = this.failures.keys().next();
      if (stalest.done !== true) this.failures.delete(stalest.value);
    }
  }

  /** A right login clears the key's failures. */
  succeeded(key: string): void {
    this.endTurn(key);
    this.failures.delete(key);
  }

  private endTurn(key: string): void {
    const turns = this.turns.get(key);
    if (turns === undefined) return;
    if (turns.waiting <= 1) this.turns.delete(key);
    else turns.waiting -= 1;
  }

  private current(key: string): Failures | undefined {
    const failures = this.failures.get(key);
    if (failures !== undefined && this.clock() - failures.last >= this.policy.windowMs) {
      this.failures.delete(key);
      return undefined;
    }
    return failures;
  }
}
