// The portal's audit log: every sign-in (and its failure), factor change and session end, as a log
// line (event `portal.audit`) and as an entry of a bounded Redis list an operator can read.
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connections.js';
import type { PortalKeys } from './keys.js';

/** Entries the Redis list keeps (the log lines keep everything). */
export const AUDIT_KEEP = 10_000;

export interface AuditEntry {
  readonly action: string;
  readonly userId?: string | undefined;
  readonly email?: string | undefined;
  readonly senderId?: string | undefined;
  readonly ip: string;
  readonly detail?: string | undefined;
}

export type Audit = (entry: AuditEntry) => Promise<void>;

export function portalAudit(redis: RedisClient, keys: PortalKeys, logger: Logger, clock: () => number): Audit {
  return async (entry) => {
    const at = clock();
    logger.info({ event: 'portal.audit', ...entry, at: new Date(at).toISOString() }, `portal: ${entry.action}`);
    try {
      await redis
        .multi()
        .lpush(keys.audit, JSON.stringify({ at, ...entry }))
        .ltrim(keys.audit, 0, AUDIT_KEEP - 1)
        .exec();
    } catch (err) {
      // the log line above is the record of last resort
      logger.warn({ err, event: 'portal.audit_unstored' }, 'the audit entry could not be stored in Redis');
    }
  };
}
