// Small lookup indexes beside the intake records, so an operator finds one message among
// thousands: by Message-ID, by From address, by letter id (the intake id is the record's key),
// and how many intakes ended in each state and reason lately. Written by IntakeStore: a new
// intake's entries by its record's CREATE script, the rest where it moves records; an entry whose record expired is skipped when read, and every
// index key expires with the records it points to.
//
//   <prefix>:find:mid:<message-id>   sorted set of intake ids by time received
//   <prefix>:find:from:<address>     sorted set of intake ids by time received
//   <prefix>:find:letter:<letter id> the intake id
//   <prefix>:ended:<state>:<reason>  sorted set of intake ids by time ended (last two days)
//   <prefix>:ended                   set of "<state>:<reason>" pairs seen
import type { RedisClient } from '../redis/connections.js';
import { type IntakeState, type IntakeUpdate, isIntakeState, type NewIntake } from './record.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Counts look back a day; entries are kept a little longer so a day is always complete. */
const ENDED_KEEP_MS = 2 * DAY_MS;
/** Matches per search term; a Message-ID or From with more is paged from the newest. */
const MAX_MATCHES = 1000;

export interface EndedCount {
  readonly state: IntakeState;
  readonly reason: string;
  readonly lastHour: number;
  readonly lastDay: number;
}

/** Message-IDs compare without their angle brackets and case-insensitively (operators paste them every way). */
export function normalizeMessageId(value: string): string {
  return value.trim().replace(/^<|>$/g, '').toLowerCase();
}

export class IntakeSearch {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** How long index entries live: as long as the longest-kept record. */
    private readonly keepMs: number,
  ) {}

  private key(kind: string, value: string): string {
    return `${this.prefix}:find:${kind}:${value}`;
  }

  /** The letter id's entry and how long it lives: also the claim that one intake holds the letter. */
  letterEntry(letterId: string): { readonly key: string; readonly keepMs: number } {
    return { key: this.key('letter', letterId), keepMs: this.keepMs };
  }

  /**
   * The index entries a new intake adds, written by the record's CREATE script in the same
   * command (scripts/create-6.lua): a sorted set per key, scored by time received, trimmed to and
   * expiring after `keepMs`.
   */
  createdEntries(intake: NewIntake): { readonly keys: readonly [string, string]; readonly keepMs: number } {
    return {
      keys: [this.key('mid', normalizeMessageId(intake.messageId)), this.key('from', intake.from.toLowerCase())],
      keepMs: this.keepMs,
    };
  }

  /** The letter id checkpoint: the intake becomes findable by its letter. */
  async letter(intakeId: string, letterId: string): Promise<void> {
    await this.redis.set(this.key('letter', letterId), intakeId, 'PX', this.keepMs);
  }

  /** A state change: the letter id becomes searchable; an end is counted by state and reason. */
  async changed(intakeId: string, to: IntakeState, update: IntakeUpdate, now: number): Promise<void> {
    const ended = to === 'submitted' || to === 'rejected' || to === 'failed' || to === 'simulated';
    // Most changes (received → queued → processing) index nothing: no pipeline to build.
    if (update.letterId === undefined && !ended) return;
    const pipeline = this.redis.pipeline();
    if (update.letterId !== undefined) pipeline.set(this.key('letter', update.letterId), intakeId, 'PX', this.keepMs);
    if (ended) {
      const pair = `${to}:${update.reasonCode ?? update.errorCode ?? 'none'}`;
      const key = `${this.prefix}:ended:${pair}`;
      pipeline.zadd(key, now, intakeId);
      pipeline.zremrangebyscore(key, '-inf', now - ENDED_KEEP_MS);
      pipeline.pexpire(key, ENDED_KEEP_MS);
      pipeline.sadd(`${this.prefix}:ended`, pair);
    }
    await pipeline.exec();
  }

  /** Intake ids matching a Message-ID, a From address, a letter id or an intake id, newest first. */
  async find(term: string): Promise<string[]> {
    const text = term.trim();
    if (text === '') return [];
    const [byMessageId, byFrom, byLetter] = await Promise.all([
      this.redis.zrevrange(this.key('mid', normalizeMessageId(text)), 0, MAX_MATCHES - 1),
      this.redis.zrevrange(this.key('from', text.toLowerCase()), 0, MAX_MATCHES - 1),
      this.redis.get(this.key('letter', text)),
    ]);
    return [...new Set([text, ...(byLetter === null ? [] : [byLetter]), ...byMessageId, ...byFrom])];
  }

  /**
   * Intake ids received from any of these From addresses between two times, newest first, at most
   * `count` (the sender portal's scope: one sender's registered addresses, never a filter on a page).
   */
  async fromAddresses(addresses: readonly string[], fromMs: number, toMs: number, count: number): Promise<string[]> {
    const lists = await Promise.all(
      addresses.map((a) => this.redis.zrevrangebyscore(this.key('from', a.toLowerCase()), toMs, fromMs, 'WITHSCORES', 'LIMIT', 0, count)),
    );
    const scored: { id: string; at: number }[] = [];
    for (const list of lists) for (let i = 0; i + 1 < list.length; i += 2) scored.push({ id: list[i] ?? '', at: Number(list[i + 1]) });
    return [...new Set(scored.sort((a, b) => b.at - a.at).map((s) => s.id))].slice(0, count);
  }

  /** How many intakes ended in each state and reason in the last hour and day. */
  async endedCounts(now: number): Promise<EndedCount[]> {
    const pairs = (await this.redis.smembers(`${this.prefix}:ended`)).sort();
    const pipeline = this.redis.pipeline();
    for (const pair of pairs) {
      pipeline.zcount(`${this.prefix}:ended:${pair}`, now - HOUR_MS, '+inf');
      pipeline.zcount(`${this.prefix}:ended:${pair}`, now - DAY_MS, '+inf');
    }
    const answers = pairs.length === 0 ? [] : ((await pipeline.exec()) ?? []);
    const count = (i: number): number => Number(answers[i]?.[1] ?? 0);
    return pairs
      .flatMap((pair, i): EndedCount[] => {
        const at = pair.indexOf(':');
        const state = pair.slice(0, at);
        if (!isIntakeState(state)) return [];
        return [{ state, reason: pair.slice(at + 1), lastHour: count(2 * i), lastDay: count(2 * i + 1) }];
      })
      .filter((c) => c.lastDay > 0);
  }
}
