// The DKIM selectors senders signed with lately, read from the newest intake records' DKIM
// check, so the doctor checks the keys real mail depends on.
import { IntakeStore } from '../intake/store.js';
import type { RedisClient } from '../redis/connections.js';
import { selectorsIn } from './dns-checks.js';

/** Records read per state: enough to see every active sender's selectors, bounded in cost. */
const RECENT_PER_STATE = 200;

/** Where the records are and how long they are kept (REDIS_PREFIX, the retention settings). */
export interface RecordSettings {
  readonly redisPrefix: string;
  readonly rawRetentionMs: number;
  readonly recordRetentionMs: number;
}

export async function recentDkimSelectors(redis: RedisClient, config: RecordSettings): Promise<Map<string, Set<string>>> {
  const store = new IntakeStore(redis, config.redisPrefix, { rawMs: config.rawRetentionMs, recordMs: config.recordRetentionMs });
  const records = (
    await Promise.all((['submitted', 'rejected', 'failed', 'simulated', 'queued'] as const).map((s) => store.list(s, RECENT_PER_STATE)))
  ).flat();
  return selectorsIn(records.map((r) => r.auth.dkim ?? ''));
}
