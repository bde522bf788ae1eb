// DKIM keys parsed once and shared across messages: the same record gives the same imported
// key object, a changed record (key rotation) a new one at once, and DNS failures are never
// kept. Records are the fixture zone's; the resolver is a function over a mutable record.

import { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createParsedKeyCache } from '../../src/fast-paths/parsed-key-cache.js';
import type { DnsResolver } from '../../src/net/resolver.js';

const zone = z
  .record(z.string(), z.object({ TXT: z.union([z.array(z.string()), z.string()]).optional() }).loose())
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/zone.json'), 'utf8')));
const recordOf = (name: string): string => {
  const txt = zone[name]?.TXT;
  return Array.isArray(txt) ? (txt[0] ?? '') : '';
};
const ACME = recordOf('rsa2048._domainkey.acme.example');
const GLOBEX = recordOf('rsa2048._domainkey.globex.example');
const NAME = 'rsa2048._domainkey.acme.example';
const OPTIONS = { strict: false, hashAlgo: 'sha256' };

function switchable(): { resolver: DnsResolver; set(answer: string | Error): void; readonly queries: string[] } {
  let current: string | Error = ACME;
  const queries: string[] = [];
  return {
    queries,
    set: (answer) => {
      current = answer;
    },
    resolver: (name, rrtype) => {
      queries.push(`${rrtype} ${name}`);
      return current instanceof Error ? Promise.reject(current) : Promise.resolve([[current]]);
    },
  };
}

const keyOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? Reflect.get(value, 'publicKey') : undefined);

describe('the parsed DKIM key cache', () => {
  it('asks DNS for every message but imports an unchanged record once', async () => {
    const dns = switchable();
    const cache = createParsedKeyCache(dns.resolver);

    const first = keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS));
    const second = keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS));

    expect(first).toBeInstanceOf(KeyObject);
    expect(second).toBe(first);
    expect(dns.queries).toEqual([`TXT ${NAME}`, `TXT ${NAME}`]);
    expect(String(first)).toMatch(/^-----BEGIN (RSA )?PUBLIC KEY-----/); // as mailauth reports it
  });

  it('uses a rotated key from the first message that sees the new record', async () => {
    const dns = switchable();
    const cache = createParsedKeyCache(dns.resolver);
    const before = keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS));

    dns.set(GLOBEX);
    const after = keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS));

    expect(after).toBeInstanceOf(KeyObject);
    expect(after).not.toBe(before);
    expect(after instanceof KeyObject && before instanceof KeyObject && after.equals(before)).toBe(false);
  });

  it('passes DNS failures on with their code and keeps none of them', async () => {
    const dns = switchable();
    const cache = createParsedKeyCache(dns.resolver);
    dns.set(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' }));

    await expect(cache.get('DKIM', NAME, undefined, OPTIONS)).rejects.toMatchObject({ code: 'ETIMEOUT' });
    dns.set(ACME);
    expect(keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS))).toBeInstanceOf(KeyObject);
  });

  it('keeps a broken record’s verdict tied to that record', async () => {
    const dns = switchable();
    const cache = createParsedKeyCache(dns.resolver);
    dns.set('v=DKIM1; k=rsa; p=');

    await expect(cache.get('DKIM', NAME, undefined, OPTIONS)).rejects.toMatchObject({ code: 'EINVALIDVAL' });
    dns.set(ACME);
    expect(keyOf(await cache.get('DKIM', NAME, undefined, OPTIONS))).toBeInstanceOf(KeyObject);
  });

  it('gives each message its own copy of the record fields', async () => {
    const cache = createParsedKeyCache(switchable().resolver);
    const first = await cache.get('DKIM', NAME, undefined, OPTIONS);
    if (typeof first === 'object' && first !== null) Reflect.set(first, 'rr', 'altered');

    const second = await cache.get('DKIM', NAME, undefined, OPTIONS);

    expect(typeof second === 'object' && second !== null ? Reflect.get(second, 'rr') : undefined).toBe(ACME.replace(/\s+/g, ''));
  });
});
