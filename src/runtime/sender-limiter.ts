// Each sender's limits (SENDERS_FILE `limits`), counted in the shared Redis: the one limiter the
// listener and the portal's uploads both pass intakes through, so every channel counts alike.
import { SenderLimiter, useRatios } from '../intake/sender-limits.js';
import type { RedisClient } from '../redis/connections.js';
import type { SenderDirectory } from '../senders/directory.js';
import type { PartContext } from './part-context.js';

/** Each sender's limits, counted in the shared Redis; an intake's sender is its From's. */
export function senderLimiter(ctx: PartContext, redis: RedisClient, senders: SenderDirectory): SenderLimiter {
  return new SenderLimiter({
    redis,
    prefix: ctx.config.redisPrefix,
    clock: ctx.clock,
    senderOf: (from) => {
      const sender = senders.byAddress(from);
      if (sender?.limits === undefined) return undefined;
      return { senderId: sender.senderId, name: sender.companyNameEn, limits: sender.limits };
    },
    // Past the acceptance bound an intake has its record (or was answered 451 and released).
    admittedGraceMs: 2 * ctx.config.enqueueTimeoutMs + 60_000,
    openLifetimeMs: ctx.config.recordRetentionMs,
    onUse: (sender, use) => {
      for (const [limit, ratio] of useRatios(sender.limits, use)) ctx.observer.senderLimitUse?.(sender.senderId, limit, ratio);
    },
  });
}
