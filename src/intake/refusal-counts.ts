// Counts of messages refused in the SMTP session, never dropped: the sampled records
// (session-refusals.ts) keep a few per client network, these count every refusal per client
// network × check × claimed From domain × reply code, with the first and last time seen and one
// sample, as a DMARC aggregate report counts a domain's mail (docs/design.md §2.5). Bounded
// whatever strangers send: one hash per UTC day, at most `maxKeys` distinct keys a day (the rest
// counted in the day's "other" row), every field cut, kept the record retention.
import { z } from 'zod';
import { networkOf } from '../net/client-network.js';
import { cutUtf8 } from '../net/cut-text.js';
import type { RedisClient } from '../redis/connections.js';
import { luaScript } from './lua-script.js';
import type { SessionRefusal } from './session-refusals.js';

const COUNT_REFUSAL = luaScript(new URL('./scripts/count-refusal-1.lua', import.meta.url));

export const COUNT_WINDOW_MS = 24 * 3600 * 1000;
/** Clients are counted per network, as the sampled records count them: an IPv4 /24, an IPv6 /64. */
const COUNT_NETWORKS = { v4Bits: 24, v6Bits: 64 } as const;
/** RFC 1035 §2.3.4: a domain name is at most 255 octets. */
const DOMAIN_MAX_BYTES = 255;
const LABEL_MAX_BYTES = 64;
const SAMPLE_FIELD_MAX_BYTES = 256;

/** What a refusal is counted under. */
export interface RefusalKey {
  readonly network: string;
  /** The failed check ("SPF", "DKIM, alignment") or the rule's reason code ("NoPdfAttachment"). */
  readonly check: string;
  /** The From header's domain as claimed (never authenticated for an authentication refusal); "" without one. */
  readonly fromDomain: string;
  /** The reply's code and enhanced code ("550 5.7.1"). */
  readonly reply: string;
}

/** The one refusal a count keeps to show: enough to find the message at its sender. */
export interface RefusalSample {
  readonly at: number;
  readonly messageId: string;
  readonly from: string;
  readonly subject: string;
}

export interface RefusalCount extends RefusalKey {
  readonly count: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly sample: RefusalSample;
}

/** The row a full day counts the rest in. */
export const OTHER_KEY: RefusalKey = { network: 'other', check: 'other', fromDomain: 'other', reply: 'other' };

export type CountOutcome = 'counted' | 'other';

/** "acme.example" from "Acme <letters@Acme.example>" or "letters@acme.example"; "" when there is none. */
export function fromDomainOf(from: string): string {
  const angle = /<([^<>]*)>\s*$/.exec(from);
  const address = (angle?.[1] ?? from).trim();
  const at = address.lastIndexOf('@');
  if (at < 0) return '';
  return cutUtf8(
    address
      .slice(at + 1)
      .replace(/[\s>]+$/, '')
      .toLowerCase(),
    DOMAIN_MAX_BYTES,
  );
}

/** "550 5.7.1" from "550 5.7.1 SPF fail for …"; the code alone when no enhanced code follows. */
export function replyCodeOf(reply: string): string {
  const match = /^(\d{3})(?:[ -](\d\.\d{1,3}\.\d{1,3}))?/.exec(reply);
  if (match?.[1] === undefined) return cutUtf8(reply, LABEL_MAX_BYTES);
  return match[2] === undefined ? match[1] : `${match[1]} ${match[2]}`;
}

export function keyOf(refusal: SessionRefusal): RefusalKey {
  return {
    network: networkOf(cutUtf8(refusal.clientIp, LABEL_MAX_BYTES), COUNT_NETWORKS),
    check: cutUtf8(refusal.reasonCode, LABEL_MAX_BYTES),
    fromDomain: fromDomainOf(refusal.from),
    reply: replyCodeOf(refusal.reply),
  };
}

function sampleOf(refusal: SessionRefusal): RefusalSample {
  const cut = (text: string) => cutUtf8(text, SAMPLE_FIELD_MAX_BYTES);
  return { at: refusal.at, messageId: cut(refusal.messageId), from: cut(refusal.from), subject: cut(refusal.subject) };
}

const fieldOf = (key: RefusalKey) => JSON.stringify([key.network, key.check, key.fromDomain, key.reply]);

export interface CountQuery {
  /** Only refusals whose claimed From domain is this one (case-insensitive). */
  readonly fromDomain?: string | undefined;
  /** Only days that hold refusals at or after this time (ms since the epoch); the counts' own times say more. */
  readonly since?: number | undefined;
}

export class RefusalCounts {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly retentionMs: number,
    private readonly maxKeys: number,
  ) {}

  private windowKey(window: number): string {
    return `${this.prefix}:refusal-counts:${window}`;
  }

  async add(refusal: SessionRefusal): Promise<CountOutcome> {
    const window = Math.floor(refusal.at / COUNT_WINDOW_MS);
    const outcome = await COUNT_REFUSAL(
      this.redis,
      this.windowKey(window),
      fieldOf(keyOf(refusal)),
      refusal.at,
      JSON.stringify(sampleOf(refusal)),
      this.maxKeys,
      fieldOf(OTHER_KEY),
      (window + 1) * COUNT_WINDOW_MS + this.retentionMs,
    );
    if (outcome !== 'counted' && outcome !== 'other') throw new Error(`the count script answered ${String(outcome)}`);
    return outcome;
  }

  /** Every count of the retention (or since `since`), a key's days added up, the most counted first. */
  async list(now: number, query: CountQuery = {}): Promise<RefusalCount[]> {
    const first = Math.floor(Math.max(now - this.retentionMs, query.since ?? 0) / COUNT_WINDOW_MS);
    const last = Math.floor(now / COUNT_WINDOW_MS);
    const pipeline = this.redis.pipeline();
    for (let window = first; window <= last; window += 1) pipeline.hgetall(this.windowKey(window));
    const answers = (await pipeline.exec()) ?? [];
    const merged = new Map<string, RefusalCount>();
    for (const [err, hash] of answers) {
      if (err !== null) throw err;
      for (const [field, value] of Object.entries(parseHash(hash))) {
        const count = parseCount(field, value);
        if (count === undefined) continue;
        const before = merged.get(field);
        merged.set(field, before === undefined ? count : mergeCounts(before, count));
      }
    }
    const domain = query.fromDomain?.toLowerCase();
    return [...merged.values()]
      .filter((c) => domain === undefined || c.fromDomain === domain)
      .filter((c) => query.since === undefined || c.lastSeen >= query.since)
      .sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen);
  }
}

function mergeCounts(a: RefusalCount, b: RefusalCount): RefusalCount {
  return {
    ...a,
    count: a.count + b.count,
    firstSeen: Math.min(a.firstSeen, b.firstSeen),
    lastSeen: Math.max(a.lastSeen, b.lastSeen),
    sample: a.firstSeen <= b.firstSeen ? a.sample : b.sample,
  };
}

function parseHash(hash: unknown): Record<string, string> {
  const parsed = z.record(z.string(), z.string()).safeParse(hash);
  return parsed.success ? parsed.data : {};
}

const keySchema = z.tuple([z.string(), z.string(), z.string(), z.string()]);
const entrySchema = z.object({
  count: z.number(),
  firstSeen: z.number(),
  lastSeen: z.number(),
  sample: z.object({ at: z.number(), messageId: z.string(), from: z.string(), subject: z.string() }),
});

function parseCount(field: string, value: string): RefusalCount | undefined {
  try {
    const key = keySchema.safeParse(JSON.parse(field));
    const entry = entrySchema.safeParse(JSON.parse(value));
    if (!key.success || !entry.success) return undefined;
    const [network, check, fromDomain, reply] = key.data;
    return { network, check, fromDomain, reply, ...entry.data };
  } catch {
    return undefined; // not JSON: not ours
  }
}
