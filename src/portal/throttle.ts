// Guessing, throttled in Redis (so every portal process counts together): attempts per account
// from one client network (an IPv4 /24, an IPv6 /64) and per client network whatever the account,
// within a window. Each attempt is counted before its answer is checked (INCR, then the limit), so
// guesses sent at once cannot all pass one reading of the count. Past the limit the attempt is
// refused 429 until the window's end — never longer; and since an account's count is kept per
// network, a stranger elsewhere cannot keep its owner out. A right answer clears the account's
// count and gives back its network's.
import { networkOf } from '../net/client-network.js';
import type { RedisClient } from '../redis/connections.js';
import type { PortalKeys } from './keys.js';

export interface ThrottleLimit {
  readonly max: number;
  readonly windowMs: number;
}

export const THROTTLE_LIMITS = {
  /** Sign-in attempts per e-mail address from one client network (key: `address|network`). */
  account: { max: 5, windowMs: 15 * 60 * 1000 },
  /** Wrong passwords and codes per client network, whatever the account. */
  network: { max: 50, windowMs: 15 * 60 * 1000 },
  /** Wrong second-factor codes per user. */
  factor: { max: 5, windowMs: 15 * 60 * 1000 },
  /** E-mail codes sent per user. */
  emailSend: { max: 3, windowMs: 15 * 60 * 1000 },
} as const satisfies Record<string, ThrottleLimit>;

export type ThrottleKind = keyof typeof THROTTLE_LIMITS;
export type Gate = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

export const clientNetwork = (ip: string): string => networkOf(ip, { v4Bits: 24, v6Bits: 64 });

export class PortalThrottle {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: PortalKeys,
  ) {}

  /**
   * Counts this attempt under each key (the window starts at the first), then refuses it when any
   * count went past its limit: one atomic step per key, so concurrent attempts are each counted.
   */
  async take(entries: readonly (readonly [ThrottleKind, string])[]): Promise<Gate> {
    let retryAfterMs = 0;
    for (const [kind, key] of entries) {
      const redisKey = this.keys.throttle(kind, key);
      const answers = await this.redis.multi().incr(redisKey).pexpire(redisKey, THROTTLE_LIMITS[kind].windowMs, 'NX').pttl(redisKey).exec();
      const count = Number(answers?.[0]?.[1] ?? 0);
      const ttl = Number(answers?.[2]?.[1] ?? -1);
      if (count > THROTTLE_LIMITS[kind].max) retryAfterMs = Math.max(retryAfterMs, ttl > 0 ? ttl : 1000);
    }
    return retryAfterMs > 0 ? { ok: false, retryAfterMs } : { ok: true };
  }

  /** Gives back one attempt under the key (a right answer is not guessing). */
  async giveBack(kind: ThrottleKind, key: string): Promise<void> {
    const redisKey = this.keys.throttle(kind, key);
    const left = await this.redis.decr(redisKey);
    if (left <= 0) await this.redis.del(redisKey);
  }

  async clear(kind: ThrottleKind, key: string): Promise<void> {
    await this.redis.del(this.keys.throttle(kind, key));
  }
}
