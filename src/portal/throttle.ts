// Guessing, throttled in Redis (so every portal process counts together): failures per account
// and per client network (an IPv4 /24, an IPv6 /64) within a window. Past the limit the attempt is
// refused 429 until the window's end — never longer: the owner gets in after the wait, and no
// stranger can lock an account for good. A right answer clears the account's count.
import { networkOf } from '../net/client-network.js';
import type { RedisClient } from '../redis/connections.js';
import type { PortalKeys } from './keys.js';

export interface ThrottleLimit {
  readonly max: number;
  readonly windowMs: number;
}

export const THROTTLE_LIMITS = {
  /** Wrong passwords (or unknown addresses) per e-mail address. */
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

  /** Refused while any of the keys reached its limit. */
  async gate(entries: readonly (readonly [ThrottleKind, string])[]): Promise<Gate> {
    let retryAfterMs = 0;
    for (const [kind, key] of entries) {
      const redisKey = this.keys.throttle(kind, key);
      const [count, ttl] = await Promise.all([this.redis.get(redisKey), this.redis.pttl(redisKey)]);
      if (Number(count ?? 0) >= THROTTLE_LIMITS[kind].max) retryAfterMs = Math.max(retryAfterMs, ttl > 0 ? ttl : 1000);
    }
    return retryAfterMs > 0 ? { ok: false, retryAfterMs } : { ok: true };
  }

  /** Counts one failure (or one send) under each key; the window starts at the first. */
  async count(entries: readonly (readonly [ThrottleKind, string])[]): Promise<void> {
    for (const [kind, key] of entries) {
      const redisKey = this.keys.throttle(kind, key);
      await this.redis.multi().incr(redisKey).pexpire(redisKey, THROTTLE_LIMITS[kind].windowMs, 'NX').exec();
    }
  }

  async clear(kind: ThrottleKind, key: string): Promise<void> {
    await this.redis.del(this.keys.throttle(kind, key));
  }
}
