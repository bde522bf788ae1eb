// The records of messages refused in the SMTP session read together: the sampled records of the
// rules and of authentication (session-refusals.ts, auth-refusals.ts) and the counts beside them
// (refusal-counts.ts). What the refused page, the intake search, `refusals` and `status` read.
import type { RedisClient } from '../redis/connections.js';
import { authRefusals } from './auth-refusals.js';
import type { CountQuery, RefusalCount } from './refusal-counts.js';
import { fromDomainOf, RefusalCounts } from './refusal-counts.js';
import { type SessionRefusal, SessionRefusals } from './session-refusals.js';

export type RefusalKind = 'rule' | 'authentication';
export type ListedRefusal = SessionRefusal & { readonly kind: RefusalKind };

export interface RefusalRecords {
  readonly rules: SessionRefusals;
  readonly authentication?: SessionRefusals | undefined;
  readonly counts?: RefusalCounts | undefined;
}

/** A search kept below the records' own bound (MAX_KEPT) so one search reads each record at most once. */
const SEARCHED = 10_000;

/** The sampled refusals of both records, newest first. */
export async function listSamples(
  records: RefusalRecords,
  limit: number,
  now: number,
  kinds: readonly RefusalKind[],
): Promise<ListedRefusal[]> {
  const [byRule, byAuth] = await Promise.all([
    kinds.includes('rule') ? records.rules.list(limit, now) : [],
    kinds.includes('authentication') && records.authentication !== undefined ? records.authentication.list(limit, now) : [],
  ]);
  return [...byRule.map((r) => ({ ...r, kind: 'rule' as const })), ...byAuth.map((r) => ({ ...r, kind: 'authentication' as const }))].sort(
    (a, b) => b.at - a.at,
  );
}

export interface RefusalFinding {
  /** Sampled refusals whose Message-ID, From or envelope sender is the one searched for. */
  readonly samples: readonly ListedRefusal[];
  /** Counted refusals of the searched From's domain (every refusal when the search names no domain). */
  readonly counted: number;
  /** Of those counted, how many have no sampled record (no Message-ID or subject kept). */
  readonly notSampled: number;
  /** The domain the counts were read for, when the search names one. */
  readonly fromDomain: string | undefined;
}

const normalize = (text: string) => text.trim().toLowerCase();
const bare = (text: string) => normalize(text).replace(/^<|>$/g, '');

/** Does a sampled refusal carry this Message-ID, From address or envelope sender? */
export function sampleMatches(refusal: SessionRefusal, q: string): boolean {
  const wanted = bare(q);
  if (wanted === '') return false;
  if (bare(refusal.messageId) === wanted) return true;
  if (bare(refusal.envelopeFrom) === wanted) return true;
  const from = normalize(refusal.from);
  return from === wanted || from.includes(`<${wanted}>`);
}

/** The domain a search names: an address's ("letters@acme.example"), or a bare domain ("acme.example"); not a Message-ID's. */
export function searchedDomain(q: string): string | undefined {
  const text = q.trim();
  if (text.startsWith('<')) return undefined; // a Message-ID names its host, not a sender
  if (text.includes('@')) return fromDomainOf(text) || undefined;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(text) ? text.toLowerCase() : undefined;
}

/** The sampled refusals a search finds, and how many refusals were counted for what it names. */
export async function findRefusals(records: RefusalRecords, q: string, now: number): Promise<RefusalFinding> {
  const fromDomain = searchedDomain(q);
  const [samples, counts] = await Promise.all([
    listSamples(records, SEARCHED, now, ['rule', 'authentication']),
    records.counts?.list(now, { fromDomain }) ?? Promise.resolve([]),
  ]);
  const inScope = fromDomain === undefined ? samples : samples.filter((r) => fromDomainOf(r.from) === fromDomain);
  const counted = total(counts);
  const byDomainOnly = fromDomain !== undefined && !q.includes('@');
  const matching = byDomainOnly ? inScope : samples.filter((r) => sampleMatches(r, q));
  return { samples: matching, counted, notSampled: Math.max(0, counted - inScope.length), fromDomain };
}

export function total(counts: readonly RefusalCount[]): number {
  return counts.reduce((sum, c) => sum + c.count, 0);
}

export type { CountQuery, RefusalCount };

/** The records as a role or a command reads them, from the settings that bound them. */
export function openRefusalRecords(
  redis: RedisClient,
  settings: {
    readonly redisPrefix: string;
    readonly recordRetentionMs: number;
    readonly refusedMaxBytes: number;
    readonly refusalCountKeys: number;
  },
): RefusalRecords & { readonly authentication: SessionRefusals; readonly counts: RefusalCounts } {
  return {
    rules: new SessionRefusals(redis, settings.redisPrefix, settings.recordRetentionMs),
    authentication: authRefusals(redis, settings.redisPrefix, settings.refusedMaxBytes),
    counts: new RefusalCounts(redis, settings.redisPrefix, settings.recordRetentionMs, settings.refusalCountKeys),
  };
}
