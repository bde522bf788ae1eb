// The letter statuses learned from one Sender API (letter-statuses.ts), kept in Redis so that
// every worker, and a worker after a restart, judges a status by what any of them saw. Keyed by
// the API's base URL (a digest of it): another API may name its statuses otherwise. Two small
// sets; each is bounded (an API inventing names cannot grow them forever), and each process
// writes a status once. A status a draft showed is taken out of the submitted set, so a status
// seen on a draft never proves a submit. Learning never fails the call it follows (a submit the
// API made must end submitted): a write Redis refuses is left for a later letter to teach.
import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/connections.js';
import type { KnownStatuses, LetterStatuses } from './letter-statuses.js';

/** At most this many names per set. */
const MAX_NAMES = 64;
/** The names are read again after this long (another worker may have learned one). */
const READ_AGAIN_MS = 60_000;

export function statusBookKeys(prefix: string, apiBaseUrl: string): { readonly drafts: string; readonly submitted: string } {
  const api = createHash('sha256').update(apiBaseUrl).digest('hex').slice(0, 16);
  return { drafts: `${prefix}:api-statuses:${api}:drafts`, submitted: `${prefix}:api-statuses:${api}:submitted` };
}

export function redisLetterStatuses(redis: RedisClient, prefix: string, apiBaseUrl: string, clock: () => number): LetterStatuses {
  const keys = statusBookKeys(prefix, apiBaseUrl);
  const written = { drafts: new Set<string>(), submitted: new Set<string>() };
  let cached: { readonly at: number; readonly known: KnownStatuses } | undefined;

  const read = async (): Promise<KnownStatuses> => {
    const [drafts, submitted] = await Promise.all([redis.smembers(keys.drafts), redis.smembers(keys.submitted)]);
    const known = { drafts: new Set(drafts), submitted: new Set(submitted) };
    cached = { at: clock(), known };
    return known;
  };

  const add = async (set: 'drafts' | 'submitted', status: string): Promise<boolean> => {
    if (written[set].has(status) || written[set].size >= MAX_NAMES) return false;
    if ((await redis.scard(keys[set])) >= MAX_NAMES) return false;
    await redis.sadd(keys[set], status);
    written[set].add(status);
    cached = undefined;
    return true;
  };

  const quietly = async (learn: () => Promise<void>): Promise<void> => {
    try {
      await learn();
    } catch {
      // Not learned this time: judging stays on the safe side (an unknown status is read again).
    }
  };

  return {
    async known() {
      if (cached !== undefined && clock() - cached.at < READ_AGAIN_MS) return cached.known;
      return read();
    },
    async learnDraft(status) {
      if (status === undefined) return;
      await quietly(async () => {
        if (await add('drafts', status)) await redis.srem(keys.submitted, status);
      });
    },
    async learnSubmitted(status) {
      if (status === undefined || written.submitted.has(status)) return;
      await quietly(async () => {
        const known = await this.known();
        if (known.drafts.has(status) || known.submitted.has(status)) return;
        await add('submitted', status);
      });
    },
  };
}
