// Caches DKIM key records (TXT at <selector>._domainkey.<domain>) across messages: a sender's
// letters all carry the same key, and its DNS round trip is the per-message cost worth saving.
// The answer is cached here, at the resolver; parsing and importing the key once per record
// text, across messages, is fast-paths/parsed-key-cache.ts's job (mailauth would redo it per message).
// Only successful answers are kept, for a short time (key rotation shows within ttlMs); errors
// (no record, time-out, SERVFAIL) are never cached. Concurrent lookups of one name share one query.
import type { DnsResolver } from '../net/resolver.js';

export interface DkimKeyCacheOptions {
  /** How long an answer is reused. Default 60 s. */
  readonly ttlMs?: number;
  /** Names kept at most; the oldest entry goes first. Default 1000. */
  readonly maxEntries?: number;
  /** Clock in ms. Default Date.now. */
  readonly now?: () => number;
}

interface Entry {
  readonly answer: Promise<unknown>;
  readonly expiresAt: number;
}

const DKIM_KEY_NAME = /\._domainkey\./i;

/** Wraps `resolver`; every query other than a DKIM key TXT query passes straight through. */
export function cacheDkimKeyLookups(resolver: DnsResolver, options: DkimKeyCacheOptions = {}): DnsResolver {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 1000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  return (name, rrtype) => {
    if (rrtype.toUpperCase() !== 'TXT' || !DKIM_KEY_NAME.test(name)) return resolver(name, rrtype);
    const key = name.toLowerCase().replace(/\.+$/, '');
    const cached = entries.get(key);
    if (cached !== undefined && cached.expiresAt > now()) return cached.answer.then(copyAnswer);

    const entry: Entry = { answer: resolver(name, rrtype), expiresAt: now() + ttlMs };
    entries.delete(key); // re-inserted last: Map order is age order
    entries.set(key, entry);
    entry.answer.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(oldest);
    }
    return entry.answer.then(copyAnswer);
  };
}

/** Each caller gets its own arrays (TXT answers are string[][]), so none can alter the cache. */
function copyAnswer(answer: unknown): unknown {
  return Array.isArray(answer) ? answer.map((record: unknown) => (Array.isArray(record) ? [...record] : record)) : answer;
}
