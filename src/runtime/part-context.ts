// What the listener and worker parts share: the context a composition root builds, and the
// intake store over a role's Redis connection.
import type { DnsResolver } from '../auth/resolver.js';
import type { Config } from '../config.js';
import type { IntakeObserver } from '../intake/observer.js';
import { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';

export interface PartContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly observer: IntakeObserver;
  readonly redisUrl: string;
  /** DNS for the listener instead of the configured one (tests inject failures with it). */
  readonly resolver?: DnsResolver;
}

export function storeFor(ctx: PartContext, redis: ConstructorParameters<typeof IntakeStore>[0]): IntakeStore {
  return new IntakeStore(redis, ctx.config.redisPrefix, {
    rawMs: ctx.config.retentionMs,
    recordMs: ctx.config.recordRetentionMs,
  });
}
