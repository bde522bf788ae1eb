// DKIM test vectors from other projects (the peer corpus's dkim/ folder), read in place:
// the RFC 8463 and RFC 6376 signed messages, and Exim's Ed25519 interop message, must verify
// (DKIM pass) through our adapter with a zone built from the keys their projects publish.
// Negative controls (altered body, wrong key) show the same setup can fail.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { authenticateMessage } from '../../src/auth/authenticate.js';
import { createZoneResolver } from '../../src/auth/zone-resolver.js';
import { peerCorpus } from '../helpers/peer-corpus.js';

const peerDkim = peerCorpus('dkim', 'peer-dkim-vectors');
const peerText = (file: string): string => readFileSync(resolve(peerDkim ?? '', file), 'utf8');
const peerRecord = (file: string): string => peerText(file).trim();

/** mailauth's ec/dns.json is already in the zone format (TXT as lists of character-strings). */
const footballZone = (): Record<string, unknown> =>
  z.record(z.string(), z.record(z.string(), z.unknown())).parse(JSON.parse(peerText('mailauth/ec/dns.json')));
const BRISBANE = 'brisbane._domainkey.football.example.com';
const TEST = 'test._domainkey.football.example.com';

interface Vector {
  readonly name: string;
  readonly message: string;
  /** Read when the test runs, so an absent corpus only skips. */
  readonly zone: () => Record<string, unknown>;
  /** Signatures expected, as "d= s= a=". */
  readonly signatures: readonly string[];
}

const vectors: readonly Vector[] = [
  {
    name: 'RFC 8463 appendix A.3 (mailauth ec/signed.eml), relaxed/relaxed',
    message: 'mailauth/ec/signed.eml',
    zone: footballZone,
    signatures: ['football.example.com brisbane ed25519-sha256', 'football.example.com test rsa-sha256'],
  },
  {
    name: 'RFC 6376 appendix A message signed by dkimpy, simple/simple',
    message: 'dkimpy/rfc6376.signed.msg',
    // brisbane is the RFC 8463 key; dkimpy publishes its RSA key in test.txt
    zone: () => ({ ...footballZone(), [TEST]: { TXT: [peerRecord('dkimpy/test.txt')] } }),
    signatures: ['football.example.com brisbane ed25519-sha256', 'football.example.com test rsa-sha256'],
  },
  {
    name: 'Exim Ed25519 interop message (dkimpy ed25519test2.msg)',
    message: 'dkimpy/ed25519test2.msg',
    zone: () => ({ 'sed._domainkey.test.ex': { TXT: [peerRecord('dkimpy/eximtest.dns')] } }),
    signatures: ['test.ex sed ed25519-sha256'],
  },
];

const session = { ip: '127.0.0.1', helo: 'mta.acme.example', sender: 'joe@football.example.com', mta: 'mx.intake.example' };

async function dkimResults(message: Buffer | string, zone: Record<string, unknown>): Promise<string[]> {
  const summary = await authenticateMessage(Buffer.from(message), session, createZoneResolver(zone));
  return summary.dkim.map((s) => `${s.signingDomain} ${s.selector} ${s.algorithm} ${s.result}`);
}

describe.skipIf(peerDkim === undefined)('peer DKIM vectors verify', () => {
  it.each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, vector) => {
    const results = await dkimResults(readFileSync(resolve(peerDkim ?? '', vector.message)), vector.zone());

    expect(results).toEqual(vector.signatures.map((s) => `${s} pass`));
  });
});

describe.skipIf(peerDkim === undefined)('negative controls', () => {
  it.each(vectors.map((v) => [v.name, v] as const))('%s: an altered body passes no signature', async (_name, vector) => {
    const original = peerText(vector.message);
    const altered = original.replace(/(\r?\n\r?\n)([A-Za-z])/, '$1X$2'); // first body line changed
    expect(altered).not.toBe(original);

    const results = await dkimResults(altered, vector.zone());

    expect(results).toHaveLength(vector.signatures.length);
    for (const r of results) expect(r).not.toMatch(/ pass$/);
  });

  it.each([
    ['a damaged RSA key (test_bad.txt)', TEST, 'dkimpy/test_bad.txt', 'test rsa-sha256', 'brisbane ed25519-sha256'],
    ['a key record of the wrong type (badk.txt)', TEST, 'dkimpy/badk.txt', 'test rsa-sha256', 'brisbane ed25519-sha256'],
    ['a different Ed25519 key (ed25519test.dns)', BRISBANE, 'dkimpy/ed25519test.dns', 'brisbane ed25519-sha256', 'test rsa-sha256'],
  ])('RFC 6376 message with %s: that signature fails, the other passes', async (_what, name, record, broken, intact) => {
    const zone = { ...footballZone(), [name]: { TXT: [peerRecord(record)] } };
    const results = await dkimResults(peerText('dkimpy/rfc6376.signed.msg'), zone);

    expect(results).toContain(`football.example.com ${intact} pass`);
    expect(results).toContainEqual(expect.stringMatching(new RegExp(`^football\\.example\\.com ${broken} (fail|neutral)$`)));
  });
});
