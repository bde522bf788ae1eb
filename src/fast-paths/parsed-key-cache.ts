// Replaces: mailauth 7.1's per-message key cache (tools.createKeyCache over getPublicKey).
// Proved by: test/unit/parsed-key-cache.test.ts and test/unit/dkim-body-hash-equivalence.test.ts.
//
// DKIM public keys parsed and imported once, shared by every message a listener verifies.
//
// mailauth parses a key record, imports the key (createPublicKey) and exports it as PEM for
// every message, and crypto.verify then imports that PEM again: on this machine ~0.4 ms of a
// 10 KB message's ~1.4 ms. Here the record is still looked up for every message (through the
// resolver, whose own TTL cache, auth/dkim-key-cache.ts, saves the DNS round trip), but the parsed
// result is reused while the record's text is unchanged: a rotated key is a new text, a new
// entry. The key is handed out as a KeyObject, which crypto.verify uses as it is; its
// toString() gives the PEM mailauth would have returned, so results read the same.
// mailauth's per-message cache shape ({ resolver, get }) is kept, so the verifier takes it as is.
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import type { KeyCache } from 'mailauth/lib/dkim/dkim-verifier.js';
import { getPublicKey, toALabel } from 'mailauth/lib/tools.js';
import type { DnsResolver } from '../net/resolver.js';

export interface ParsedKeyCacheOptions {
  /** Distinct (record text, options) entries kept; the least recently used goes first. Default 1000. */
  readonly maxEntries?: number;
}

/** A parsed key record as getPublicKey returned it, and its key imported once. */
interface Entry {
  readonly record: Readonly<Record<string, unknown>>;
  readonly key: KeyObject;
}

export function createParsedKeyCache(resolver: DnsResolver, options: ParsedKeyCacheOptions = {}): KeyCache {
  const maxEntries = options.maxEntries ?? 1000;
  const entries = new Map<string, Promise<Entry>>();

  return {
    resolver,
    async get(type, name, minBitLength, keyOptions) {
      // DNS errors reach the verifier exactly as getPublicKey would pass them on
      const answer = await resolver(toALabel(name), 'TXT');
      const id = JSON.stringify([type, minBitLength ?? null, keyOptions.strict === true, keyOptions.hashAlgo ?? '', answer]);
      // the record's verdict (a broken record's error included) depends only on its text
      const entry = entries.get(id) ?? parse(getPublicKey(type, name, minBitLength, () => Promise.resolve(answer), keyOptions));
      entries.delete(id); // re-inserted last: Map order is recency
      entries.set(id, entry);
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
      return entry.then(forOneMessage);
    },
  };
}

function parse(parsed: Promise<Readonly<Record<string, unknown>> & { readonly publicKey: string }>): Promise<Entry> {
  const entry = parsed.then((record) => {
    const key = createPublicKey(record.publicKey);
    const pem = record.publicKey;
    // mailauth reports result.publicKey = publicKey.toString(): keep that the PEM
    Object.defineProperty(key, 'toString', { value: () => pem });
    return { record, key };
  });
  entry.catch(() => undefined); // a cached rejection is not an unhandled one
  return entry;
}

/** Each message gets its own object and arrays, so none can alter the cached entry. */
function forOneMessage({ record, key }: Entry): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) copy[field] = Array.isArray(value) ? Array.from<unknown>(value) : value;
  copy.publicKey = key;
  return copy;
}
