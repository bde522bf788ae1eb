// The static zone (DNS_ZONE_FILE): answers shaped like dns.promises.resolve, failures with
// the error codes mailauth reads, and a file that is checked before it is used.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createZoneResolver, denyDnsResolver, loadZoneResolver } from '../../src/auth/zone-resolver.js';

const long = `v=DKIM1; k=rsa; p=${'A'.repeat(580)}`;

const zone = createZoneResolver({
  'Acme.Example': { TXT: ['v=spf1 ip4:127.0.0.1 -all', 'site-verification=abc'], MX: [{ exchange: 'mx.acme.example', priority: 10 }] },
  'rsa._domainkey.acme.example': { TXT: [long] },
  'chunked.acme.example': { TXT: [['v=spf1 ip4:192.0.2.1', ' -all']] },
  'mx.acme.example': { A: ['192.0.2.25'], AAAA: ['2001:db8::25'] },
  'empty.acme.example': { TXT: [] },
  'slow.example': { TXT: 'TIMEOUT' },
  'broken.example': { TXT: 'SERVFAIL' },
});

function writeTemp(name: string, content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'zone-')), name);
  writeFileSync(file, content);
  return file;
}

describe('createZoneResolver answers', () => {
  it('returns TXT records as lists of character-strings', async () => {
    await expect(zone('acme.example', 'TXT')).resolves.toEqual([['v=spf1 ip4:127.0.0.1 -all'], ['site-verification=abc']]);
  });

  it('splits a long TXT value into chunks of at most 255 characters', async () => {
    const answer = await zone('rsa._domainkey.acme.example', 'TXT');

    expect(answer).toEqual([[long.slice(0, 255), long.slice(255, 510), long.slice(510)]]);
  });

  it('keeps character-strings given explicitly', async () => {
    await expect(zone('chunked.acme.example', 'TXT')).resolves.toEqual([['v=spf1 ip4:192.0.2.1', ' -all']]);
  });

  it('answers MX with objects and A/AAAA with strings', async () => {
    await expect(zone('acme.example', 'MX')).resolves.toEqual([{ exchange: 'mx.acme.example', priority: 10 }]);
    await expect(zone('mx.acme.example', 'A')).resolves.toEqual(['192.0.2.25']);
    await expect(zone('mx.acme.example', 'AAAA')).resolves.toEqual(['2001:db8::25']);
  });

  it('compares names case-insensitively and ignores a trailing dot', async () => {
    await expect(zone('ACME.example.', 'txt')).resolves.toHaveLength(2);
  });

  it('hands out copies, so a caller cannot change the zone', async () => {
    const first = await zone('acme.example', 'TXT');
    if (Array.isArray(first)) first.length = 0;

    await expect(zone('acme.example', 'TXT')).resolves.toHaveLength(2);
  });
});

describe('createZoneResolver failures', () => {
  it.each([
    ['an unknown name', 'nowhere.example', 'TXT', 'ENOTFOUND'],
    ['a known name without that type', 'mx.acme.example', 'TXT', 'ENODATA'],
    ['an empty record list', 'empty.acme.example', 'TXT', 'ENODATA'],
    ['"TIMEOUT"', 'slow.example', 'TXT', 'ETIMEOUT'],
    ['"SERVFAIL"', 'broken.example', 'TXT', 'ESERVFAIL'],
  ])('%s rejects with %s', async (_what, name, type, code) => {
    await expect(zone(name, type)).rejects.toMatchObject({ code, hostname: name, rrtype: type });
  });

  it('denyDnsResolver refuses every query and names it', async () => {
    await expect(denyDnsResolver('acme.example', 'TXT')).rejects.toMatchObject({
      code: 'EDENIED',
      message: 'query TXT acme.example: EDENIED',
    });
  });
});

describe('zone validation', () => {
  it.each([
    ['a zone that is not an object', ['acme.example'], '(root)'],
    ['a value that is neither a list nor TIMEOUT/SERVFAIL', { 'a.example': { TXT: 'v=spf1 -all' } }, 'a.example.TXT'],
    ['a character-string over 255 characters', { 'a.example': { TXT: [['x'.repeat(256)]] } }, 'a.example.TXT.0'],
    ['a record type that is not a word', { 'a.example': { 'T XT': ['x'] } }, 'a.example'],
  ])('refuses %s, naming DNS_ZONE_FILE and the place', (_what, json, place) => {
    expect(() => createZoneResolver(json)).toThrow(/^DNS_ZONE_FILE is not a valid DNS zone:/);
    expect(() => createZoneResolver(json)).toThrow(place);
  });

  it.each([
    [
      'an MX given as a string',
      { 'a.example': { MX: ['10 mx.a.example'] } },
      'a.example MX: MX values are {"exchange": name, "priority": number}',
    ],
    ['an A record given as an object', { 'a.example': { A: [{ exchange: 'x', priority: 1 }] } }, 'a.example A: A values are strings'],
    [
      'a TXT value given as an object',
      { 'a.example': { TXT: [{ exchange: 'x', priority: 1 }] } },
      'a.example TXT: TXT values are strings or lists of strings',
    ],
    [
      'the same name twice in different case',
      { 'a.example': { TXT: ['x'] }, 'A.example': { TXT: ['y'] } },
      'the name a.example appears twice',
    ],
  ])('refuses %s', (_what, json, message) => {
    expect(() => createZoneResolver(json)).toThrow(message);
  });

  it('names the file when it is not JSON', () => {
    const file = writeTemp('zone.json', '{ not json');

    expect(() => loadZoneResolver(file)).toThrow(`DNS_ZONE_FILE ${file} cannot be read as JSON`);
  });

  it('names the file when it is missing', () => {
    expect(() => loadZoneResolver('/nonexistent/zone.json')).toThrow('DNS_ZONE_FILE /nonexistent/zone.json cannot be read');
  });

  it('names the file when its content is not a zone', () => {
    const file = writeTemp('zone.json', JSON.stringify({ 'a.example': { TXT: 'NXDOMAIN' } }));

    expect(() => loadZoneResolver(file)).toThrow(`DNS_ZONE_FILE ${file} is not a valid DNS zone`);
  });

  it('loads a zone file', async () => {
    const file = writeTemp('zone.json', JSON.stringify({ 'a.example': { TXT: ['v=spf1 -all'] } }));

    await expect(loadZoneResolver(file)('a.example', 'TXT')).resolves.toEqual([['v=spf1 -all']]);
  });
});
