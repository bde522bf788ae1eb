// What the listener and worker parts share: the context a composition root builds, and the
// intake store over a role's Redis connection.

import type { Config } from '../config.js';
import type { IntakeObserver } from '../intake/observer.js';
import { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { DnsResolver } from '../net/resolver.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisTopology } from '../redis/topology.js';
import type { Reloads } from './reloads.js';

export interface PartContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly observer: IntakeObserver;
  /** Where Redis is: the configured topology, or the embedded server `start` runs. */
  readonly redisTopology: RedisTopology;
  /** Where messages are written (listener) and read (worker); opened and checked by the composition root. */
  readonly rawStore: RawStore;
  /** What the process reloads on SIGHUP and file changes (absent: nothing is reloaded). */
  readonly reloads?: Reloads;
  /** DNS for the listener instead of the configured one (tests inject failures with it). */
  readonly resolver?: DnsResolver;
}

/** The intake store (records only) over a role's connection. */
export function storeFor(ctx: Pick<PartContext, 'config'>, redis: ConstructorParameters<typeof IntakeStore>[0]): IntakeStore {
  return new IntakeStore(redis, ctx.config.redisPrefix, {
    rawMs: ctx.config.rawRetentionMs,
    recordMs: ctx.config.recordRetentionMs,
  });
}
