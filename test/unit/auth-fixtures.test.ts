// Every fixture message through the real mailauth adapter and the verdict, with DNS answered
// from fixtures/zone.json: what should pass really passes, what should fail fails for its
// reason. Also: the files are exactly what `npm run fixtures` makes, and DKIM key answers
// are cached across messages.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FIXTURE_SESSION, FIXTURES, type FixtureSpec } from '../../fixtures/catalog.js';
import { loadKeys } from '../../fixtures/keys.js';
import { createFixtureBuilder } from '../../fixtures/recipes.js';
import { authenticateMessage } from '../../src/auth/authenticate.js';
import { cacheDkimKeyLookups } from '../../src/auth/dkim-key-cache.js';
import { judgeAuthentication } from '../../src/auth/verdict.js';
import { denyDnsResolver, loadZoneResolver } from '../../src/auth/zone-resolver.js';
import type { DnsResolver } from '../../src/net/resolver.js';

const fixturesDir = join(import.meta.dirname, '../../fixtures');
const zone = loadZoneResolver(join(fixturesDir, 'zone.json'));
const read = (file: string): Buffer => readFileSync(join(fixturesDir, 'eml', file));
const contextFor = (spec: FixtureSpec) => ({
  ip: FIXTURE_SESSION.ip,
  helo: FIXTURE_SESSION.helo,
  mta: FIXTURE_SESSION.mta,
  sender: spec.envelopeSender,
});
const spec = (file: string): FixtureSpec => {
  const found = FIXTURES.find((f) => f.file === file);
  if (found === undefined) throw new Error(`${file} is not in the catalog`);
  return found;
};

/** Wraps a resolver and records each query as "TYPE name". */
function counting(resolver: DnsResolver): { readonly resolver: DnsResolver; readonly queries: string[] } {
  const queries: string[] = [];
  const recording: DnsResolver = (name, type) => {
    queries.push(`${type} ${name}`);
    return resolver(name, type);
  };
  return { queries, resolver: recording };
}

describe('each fixture gets its expected authentication verdict', () => {
  it.each(FIXTURES.map((f) => [f.file, f] as const))('%s', async (_file, fixture) => {
    const summary = await authenticateMessage(read(fixture.file), contextFor(fixture), zone);
    const verdict = judgeAuthentication(summary);

    expect(verdict.outcome).toBe(fixture.auth.outcome);
    if (verdict.outcome !== 'pass' && fixture.auth.outcome !== 'pass') {
      for (const fragment of fixture.auth.reasonIncludes) expect(verdict.reason).toContain(fragment);
    }
  });
});

describe('the fixture files', () => {
  it('are exactly the catalogued ones', () => {
    const onDisk = readdirSync(join(fixturesDir, 'eml'))
      .filter((f) => f.endsWith('.eml'))
      .sort();

    expect(onDisk).toEqual(FIXTURES.map((f) => f.file).sort());
  });

  it('are byte for byte what `npm run fixtures` makes', async () => {
    const build = createFixtureBuilder(loadKeys(join(fixturesDir, 'keys')));

    for (const fixture of FIXTURES) {
      expect(await build(fixture), fixture.file).toBe(read(fixture.file).toString('utf8'));
    }
  });
});

describe('authenticateMessage', () => {
  it('reports the l= tag and that it leaves the appended PDF unsigned', async () => {
    const fixture = spec('dkim-partial-body-appended.eml');
    const summary = await authenticateMessage(read(fixture.file), contextFor(fixture), zone);

    expect(summary.dkim).toEqual([
      expect.objectContaining({ signingDomain: 'acme.example', result: 'pass', bodyLengthTag: 228, coversWholeBody: false }),
    ]);
  });

  it('reports From, SPF and the headers to prepend', async () => {
    const fixture = spec('dkim-pass-aligned.eml');
    const summary = await authenticateMessage(read(fixture.file), contextFor(fixture), zone);

    expect(summary).toMatchObject({
      fromAddresses: ['letters@acme.example'],
      fromFields: 1,
      spf: { domain: 'acme.example', identity: 'mailfrom', result: 'pass', clientIp: '127.0.0.1' },
      dkim: [
        {
          signingDomain: 'acme.example',
          selector: 'rsa2048',
          algorithm: 'rsa-sha256',
          result: 'pass',
          bodyLengthTag: undefined,
          coversWholeBody: true,
        },
      ],
    });
    expect(summary.headers).toMatch(/^Received-SPF: pass .*\r\nAuthentication-Results: mx\.intake\.example;\r\n dkim=pass /s);
    expect(summary.headers.endsWith('\r\n')).toBe(true);
  });

  it('reads the message from a stream as well as from a Buffer', async () => {
    const fixture = spec('ed25519-signed.eml');
    const raw = read(fixture.file);
    const fromStream = await authenticateMessage(Readable.from([raw.subarray(0, 100), raw.subarray(100)]), contextFor(fixture), zone);

    expect(fromStream).toEqual(await authenticateMessage(raw, contextFor(fixture), zone));
    expect(judgeAuthentication(fromStream).outcome).toBe('pass');
  });

  it('never passes a message when DNS cannot be reached', async () => {
    const fixture = spec('dkim-pass-aligned.eml');
    const verdict = judgeAuthentication(await authenticateMessage(read(fixture.file), contextFor(fixture), denyDnsResolver));

    expect(verdict).toMatchObject({ outcome: 'temporary', reason: expect.stringContaining('SPF temperror for acme.example') });
  });
});

describe('cacheDkimKeyLookups', () => {
  const pass = spec('dkim-pass-aligned.eml');
  const keyQuery = 'TXT rsa2048._domainkey.acme.example';

  it('asks DNS once for a key used by two messages', async () => {
    const dns = counting(zone);
    const cached = cacheDkimKeyLookups(dns.resolver);
    const first = judgeAuthentication(await authenticateMessage(read(pass.file), contextFor(pass), cached));
    const second = judgeAuthentication(await authenticateMessage(read('pdf-attachment.eml'), contextFor(pass), cached));

    expect([first.outcome, second.outcome]).toEqual(['pass', 'pass']);
    expect(dns.queries.filter((q) => q === keyQuery)).toHaveLength(1);
    expect(dns.queries.filter((q) => q === 'TXT acme.example')).toHaveLength(2); // SPF is not cached
  });

  it('asks again once the answer is older than the TTL', async () => {
    let now = 0;
    const dns = counting(zone);
    const cached = cacheDkimKeyLookups(dns.resolver, { ttlMs: 60_000, now: () => now });
    await cached('rsa2048._domainkey.acme.example', 'TXT');
    now = 59_999;
    await cached('rsa2048._domainkey.acme.example', 'TXT');
    now = 60_000;
    await cached('rsa2048._domainkey.acme.example', 'TXT');

    expect(dns.queries).toEqual([keyQuery, keyQuery]);
  });

  it('does not keep failures', async () => {
    const dns = counting(zone);
    const cached = cacheDkimKeyLookups(dns.resolver);
    const name = 'rsa2048._domainkey.slow.acme.example';

    await expect(cached(name, 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await expect(cached(name, 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(dns.queries).toHaveLength(2);
  });

  it('shares one query between concurrent lookups and hands out separate copies', async () => {
    const dns = counting(zone);
    const cached = cacheDkimKeyLookups(dns.resolver);
    const [a, b] = await Promise.all([cached('RSA2048._domainkey.acme.example', 'TXT'), cached('rsa2048._domainkey.acme.example.', 'TXT')]);

    expect(dns.queries).toHaveLength(1);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
  });

  it('forgets the oldest names beyond maxEntries', async () => {
    const dns = counting(zone);
    const cached = cacheDkimKeyLookups(dns.resolver, { maxEntries: 1 });
    await cached('rsa2048._domainkey.acme.example', 'TXT');
    await cached('ed25519._domainkey.acme.example', 'TXT');
    await cached('rsa2048._domainkey.acme.example', 'TXT');

    expect(dns.queries).toEqual([keyQuery, 'TXT ed25519._domainkey.acme.example', keyQuery]);
  });
});
