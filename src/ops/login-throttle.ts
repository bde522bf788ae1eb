// Failed admin logins, slowed down or refused so that passwords cannot be guessed at full speed
// (docs/design.md §17). Two ways, chosen by what the gateway knows of its callers:
// - behind proxies it trusts (HTTP_TRUSTED_PROXIES), a caller's own address is known: an address
//   with too many recent failures is refused (429) until its window ends. Counting by the socket
//   address behind a TLS proxy would count every attempt against the proxy, and one attacker
//   would lock every admin out.
// - otherwise the address may be a proxy's, so failures are counted per user name (the
//   configured one, or any other), and each attempt under a name with recent failures waits an
//   increasing delay before it is checked, a right one included (a delay on failures alone would
//   say "wrong" by its length). Never a lock-out: the right login still gets in.
// Outcomes are values; the clock is injected, and the map is bounded.

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
}

export const LOGIN_THROTTLE_POLICY: LoginThrottlePolicy = {
  maxFailures: 10,
  windowMs: 15 * 60 * 1000,
  freeFailures: 3,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  maxKeys: 10_000,
};

export type LoginGate = { readonly kind: 'check'; readonly delayMs: number } | { readonly kind: 'refuse'; readonly retryAfterMs: number };

interface Failures {
  count: number;
  last: number;
}

export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    readonly mode: 'per-address' | 'per-user',
    private readonly clock: () => number,
    private readonly policy: LoginThrottlePolicy = LOGIN_THROTTLE_POLICY,
  ) {}

  /** Before the credentials are checked: go ahead (perhaps after a delay), or refuse. */
  gate(key: string): LoginGate {
    const failures = this.current(key);
    if (this.mode === 'per-address') {
      if (failures === undefined || failures.count < this.policy.maxFailures) return { kind: 'check', delayMs: 0 };
      return { kind: 'refuse', retryAfterMs: failures.last + this.policy.windowMs - this.clock() };
    }
    const over = (failures?.count ?? 0) - this.policy.freeFailures;
    if (over < 0) return { kind: 'check', delayMs: 0 };
    return { kind: 'check', delayMs: Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.min(over, 30)) };
  }

  failed(key: string): void {
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
    this.failures.delete(key);
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
