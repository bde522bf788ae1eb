// Messages refused in the SMTP session by their own rules (docs/design.md §2.4): a short record each,
// so an operator who gets a call can find the message. They never became intakes (no raw
// message, no job). One sorted set, scored by time, bounded whatever strangers send: each field
// is cut, entries older than the retention are dropped on every write, the newest MAX_KEPT and
// at most the budget's bytes are kept, and one client network gets at most a number of records
// an hour (the record is for operators, not a store an attacker with many domains can fill), and
// past them only its latest (a burst keeps its first records and its last; every refusal is
// counted beside them: refusal-counts.ts).
// The per-network counts are part of the budget: an eighth of it is set aside for them, which
// bounds how many networks one window counts. The script writing it (scripts/record-refusal-5.lua) keeps
// all of it in one step.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { networkOf } from '../net/client-network.js';
import { cutUtf8 } from '../net/cut-text.js';
import type { RedisClient } from '../redis/connections.js';
import { luaScript } from './lua-script.js';

/** Writes one record within every bound, in one step (scripts/record-refusal-5.lua). */
const RECORD_REFUSAL = luaScript(new URL('./scripts/record-refusal-5.lua', import.meta.url));

/** A bound on the index whatever a sender does: refusals past it drop the oldest. */
const MAX_KEPT = 10_000;
/** Bytes kept of each field a client chose (From, Message-ID, HELO, …). */
export const FIELD_MAX_BYTES = 256;
/** RFC 5322 §2.1.1: a line is at most 998 characters; a subject is kept up to that many bytes. */
export const SUBJECT_MAX_BYTES = 998;
/** Redis's own cost of one entry in a sorted set (skiplist node, dict entry), charged to the budget. */
export const ENTRY_OVERHEAD_BYTES = 128;
/** Redis's cost of one network counted in a window (hash entry, its network and its count). */
const NETWORK_ENTRY_BYTES = 128;
/** The share of a budget set aside for one window's per-network counts; the records get the rest. */
const NETWORK_SHARE = 1 / 8;
const HOUR_MS = 3600 * 1000;
/** Clients are counted per network: an IPv4 /24, an IPv6 /64 (client-network.ts). */
const REFUSAL_NETWORKS = { v4Bits: 24, v6Bits: 64 } as const;

/** One record's bounds; another kind of refusal can keep its own record under its own name. */
export interface RefusalBudget {
  /** The record's key under the prefix (`<prefix>:<name>`) and the start of its companions' keys. */
  readonly name: string;
  /** What the whole record may cost in Redis (REFUSED_MAX_BYTES for the session's rules). */
  readonly maxBytes: number;
  /** Records one client network (/24, /64) may add per clock hour (per `windowMs` when given). */
  readonly perNetworkPerHour: number;
  /** The window the per-network count runs over, when not an hour (authentication refusals: a minute). */
  readonly windowMs?: number;
}

export const SESSION_REFUSAL_BUDGET: RefusalBudget = { name: 'refused', maxBytes: 16 * 1024 * 1024, perNetworkPerHour: 100 };

/**
 * What became of one refusal's record: kept, kept as its network's latest past the network's
 * records this window (in place of the previous latest), or left out by a bound (the refusal
 * itself stands, and is counted: refusal-counts.ts).
 */
export type RefusalRecordOutcome = 'recorded' | 'latest' | 'networks' | 'budget';

export interface SessionRefusal {
  readonly at: number;
  readonly reasonCode: string;
  /** The whole reply the client got, e.g. "550 5.6.0 NoPdfAttachment: …". */
  readonly reply: string;
  readonly from: string;
  readonly messageId: string;
  readonly subject: string;
  readonly envelopeFrom: string;
  readonly clientIp: string;
  readonly helo: string;
}

export class SessionRefusals {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly retentionMs: number,
    private readonly budget: RefusalBudget = SESSION_REFUSAL_BUDGET,
  ) {
    this.key = `${prefix}:${budget.name}`;
  }

  async add(refusal: SessionRefusal): Promise<RefusalRecordOutcome> {
    const network = networkOf(refusal.clientIp, REFUSAL_NETWORKS);
    const windowMs = this.budget.windowMs ?? HOUR_MS;
    const { networksPerWindow, recordBytes } = budgetShares(this.budget.maxBytes);
    // the random tag keeps two identical refusals in the same millisecond apart
    const member = JSON.stringify({ ...boundRefusal(refusal), tag: randomBytes(4).toString('hex') });
    const outcome = await RECORD_REFUSAL(
      this.redis,
      this.key,
      `${this.key}:bytes`,
      `${this.key}:networks`,
      `${this.key}:networks:window`,
      `${this.key}:networks:latest`,
      refusal.at,
      member,
      this.retentionMs,
      MAX_KEPT,
      recordBytes,
      network,
      this.budget.perNetworkPerHour,
      networksPerWindow,
      ENTRY_OVERHEAD_BYTES,
      Math.floor(refusal.at / windowMs),
      windowMs,
    );
    if (!isOutcome(outcome)) throw new Error(`the refusal script answered ${String(outcome)}`);
    return outcome;
  }

  /** Newest first; those older than the retention are left out even before a write drops them. */
  async list(limit: number, now: number): Promise<SessionRefusal[]> {
    const members = await this.redis.zrevrangebyscore(this.key, '+inf', now - this.retentionMs, 'LIMIT', 0, limit);
    return members.flatMap((m) => {
      const parsed = parseRefusal(m);
      return parsed === undefined ? [] : [parsed];
    });
  }
}

/** How a budget is shared: one window's per-network counts (at most MAX_KEPT networks), the records the rest. */
export function budgetShares(maxBytes: number): { readonly networksPerWindow: number; readonly recordBytes: number } {
  const networksPerWindow = Math.min(MAX_KEPT, Math.floor((maxBytes * NETWORK_SHARE) / NETWORK_ENTRY_BYTES));
  return { networksPerWindow, recordBytes: maxBytes - networksPerWindow * NETWORK_ENTRY_BYTES };
}

const OUTCOMES: readonly unknown[] = ['recorded', 'latest', 'networks', 'budget'] satisfies RefusalRecordOutcome[];

function isOutcome(value: unknown): value is RefusalRecordOutcome {
  return OUTCOMES.includes(value);
}

/** The refusal with every field a client chose cut to its bound. */
export function boundRefusal(refusal: SessionRefusal): SessionRefusal {
  const cut = (text: string) => cutUtf8(text, FIELD_MAX_BYTES);
  return {
    at: refusal.at,
    reasonCode: cut(refusal.reasonCode),
    reply: cut(refusal.reply),
    from: cut(refusal.from),
    messageId: cut(refusal.messageId),
    subject: cutUtf8(refusal.subject, SUBJECT_MAX_BYTES),
    envelopeFrom: cut(refusal.envelopeFrom),
    clientIp: cut(refusal.clientIp),
    helo: cut(refusal.helo),
  };
}

const refusalSchema = z.object({
  at: z.number(),
  reasonCode: z.string(),
  reply: z.string(),
  from: z.string(),
  messageId: z.string(),
  subject: z.string(),
  envelopeFrom: z.string(),
  clientIp: z.string(),
  helo: z.string(),
});

function parseRefusal(member: string): SessionRefusal | undefined {
  try {
    const parsed = refusalSchema.safeParse(JSON.parse(member));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not JSON: not ours
  }
}
