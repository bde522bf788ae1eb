// The fast DKIM path (src/fast-paths/fast-dkim-verifier.ts: whole-chunk bare-LF rewriting and relaxed
// body hashing, keys parsed once) must give exactly what mailauth gives. The reference is
// mailauth itself, run on the same bytes cut into the same chunks: its RelaxedHash for the
// hasher, its DkimVerifier for whole messages, its authenticate() for the full result.
// Inputs: every message of the peer DKIM corpus (PEER_CORPUS_DIR), this project's fixtures,
// and generated bodies full of the cases that need folding (runs of spaces and tabs, space
// before CRLF, bare LF and CR, CR at a chunk's end, empty and trailing empty lines), each
// with and without l=.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { RelaxedHash } from 'mailauth/lib/dkim/body/relaxed.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { authenticate } from 'mailauth/lib/mailauth.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { FIXTURE_SESSION, FIXTURES } from '../../fixtures/catalog.js';
import { createZoneResolver, loadZoneResolver } from '../../src/auth/zone-resolver.js';
import { verifyDkim } from '../../src/fast-paths/fast-dkim-verifier.js';
import { bareLineFeedsToCrlf } from '../../src/fast-paths/line-breaks.js';
import { authenticateFast } from '../../src/fast-paths/mailauth-authenticate.js';
import { createParsedKeyCache } from '../../src/fast-paths/parsed-key-cache.js';
import { FastRelaxedHash } from '../../src/fast-paths/relaxed-body-hash.js';
import type { DnsResolver } from '../../src/net/resolver.js';
import { chunkings } from '../helpers/chunkings.js';
import { peerCorpus } from '../helpers/peer-corpus.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const SEED = 20261122;
const FIXTURES_DIR = join(import.meta.dirname, '../../fixtures');
const PEER_DKIM = peerCorpus('dkim', 'dkim-body-hash-equivalence (peer DKIM messages)');
const PEER_MESSAGES = [
  'ed25519test.msg',
  'ed25519test2.msg',
  'message.mbox',
  'rfc6376.msg',
  'rfc6376.signed.msg',
  'test.message',
  'test2.message',
  'test_extra.message',
  'test_nofrom.message',
]
  .map((f) => `dkimpy/${f}`)
  .concat(['mailauth/ec/signed.eml', 'mailauth/message1.eml']);

interface Hashed {
  readonly hash: string;
  readonly byteLength: number;
  readonly canonicalizedLength: number;
  readonly bodyHashedBytes: number;
}

function hashWith(hasher: RelaxedHash, chunks: readonly Buffer[]): Hashed {
  for (const chunk of chunks) hasher.update(chunk);
  const hash = hasher.digest('base64');
  return { hash, byteLength: hasher.byteLength, canonicalizedLength: hasher.canonicalizedLength, bodyHashedBytes: hasher.bodyHashedBytes };
}

const NAMED_BODIES: readonly (readonly [string, string])[] = [
  ['an empty body', ''],
  ['only line breaks', '\r\n\r\n\r\n'],
  ['only bare LFs', '\n\n\n'],
  ['one line without a line break', 'hello world'],
  ['a last line ending in one space', 'hello\r\nworld '],
  ['a last line ending in a tab', 'hello\r\nworld\t'],
  ['trailing empty lines', 'a\r\nb\r\n\r\n\r\n\r\n'],
  ['trailing empty lines with white space', 'a\r\n \r\n\t\r\n  \r\n'],
  ['bare LF line ends', 'one\ntwo\nthree\n'],
  ['a bare LF after a CRLF', 'one\r\n\ntwo\r\n'],
  ['a bare CR inside a line', 'one\rtwo\r\n'],
  ['CR CR LF', 'one\r\r\ntwo\r\n'],
  ['a space before CRLF', 'one \r\ntwo\r\n'],
  ['spaces before CRLF', 'one   \r\ntwo\r\n'],
  ['runs of spaces and tabs', 'a  b\t\tc \t d\r\n'],
  ['a line of only white space', 'a\r\n \t \r\nb\r\n'],
  ['leading white space', '  a\r\n\tb\r\n'],
  ['a space then a bare CR at the end', 'a \r'],
  ['base64 lines', `${'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx\r\n'.repeat(40)}`],
  ['quoted-printable with soft breaks', 'caf=C3=A9 au lait, tr=C3=A8s =\r\nbien=20\r\n=\r\n'],
  ['a long line with no line break', 'x'.repeat(5000)],
];

const WHITE_SPACE_HEAVY = ['a', 'b', ' ', ' ', '  ', '\t', '\r', '\n', '\r\n', '\r\n', '\r\n\r\n', 'QUJD', '=20'];

function randomBody(random: () => number, pieces: number): string {
  let body = '';
  for (let i = 0; i < pieces; i++) body += WHITE_SPACE_HEAVY[Math.floor(random() * WHITE_SPACE_HEAVY.length)] ?? '';
  return body;
}

function generatedBodies(): (readonly [string, Buffer])[] {
  const random = mulberry32(SEED);
  const generated = Array.from(
    { length: 60 },
    (_, i) => [`random white-space body #${i + 1}`, Buffer.from(randomBody(random, 1 + Math.floor(random() * 400)))] as const,
  );
  return [...NAMED_BODIES.map(([name, body]) => [name, Buffer.from(body, 'latin1')] as const), ...generated];
}

function bodyLengthLimits(body: Buffer): (number | '')[] {
  return ['', 0, 1, 5, Math.floor(body.length / 2), body.length, body.length + 10];
}

describe('relaxed body hashing: the fast hasher equals mailauth’s RelaxedHash', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(generatedBodies())('%s, cut three ways, with and without l=', (_name, body) => {
    const random = mulberry32(SEED + body.length);
    for (const chunks of chunkings(body, random)) {
      for (const limit of bodyLengthLimits(body)) {
        const expected = hashWith(new RelaxedHash('sha256', limit), chunks);
        expect({ limit, ...hashWith(new FastRelaxedHash('sha256', limit), chunks) }).toEqual({ limit, ...expected });
      }
    }
  });

  it.each(generatedBodies())('%s, bare LFs made CRLF chunk by chunk as the verifier does, with and without l=', (_name, body) => {
    const random = mulberry32(SEED + body.length + 1);
    for (const raw of chunkings(body, random)) {
      const chunks = raw.map((chunk, i) => bareLineFeedsToCrlf(chunk, raw[i - 1]?.at(-1)));
      for (const limit of bodyLengthLimits(body)) {
        const expected = hashWith(new RelaxedHash('sha256', limit), chunks);
        const fast = new FastRelaxedHash('sha256', limit, { lineEndsAreCrlf: true });
        expect({ limit, ...hashWith(fast, chunks) }).toEqual({ limit, ...expected });
      }
    }
  });

  it('a body of base64 lines is hashed without mailauth’s byte-by-byte scan', () => {
    const body = Buffer.from('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx\r\n'.repeat(1000));
    const expected = hashWith(new RelaxedHash('sha256', ''), [body]);
    const scans = vi.spyOn(RelaxedHash.prototype, 'update');
    const fast = new FastRelaxedHash('sha256', '');
    fast.update(body.subarray(0, 40_000)); // a cut inside a line: only its two halves are mailauth's
    fast.update(body.subarray(40_000));

    expect(scans.mock.calls.map(([chunk]) => chunk?.length ?? 0)).toEqual([40_000 % 74, 74 - (40_000 % 74)]);
    expect(fast.digest('base64')).toBe(expected.hash);
  });

  it('a one-space difference changes the hash (the comparison can fail)', () => {
    const a = hashWith(new FastRelaxedHash('sha256', ''), [Buffer.from('a b\r\n')]);
    const b = hashWith(new RelaxedHash('sha256', ''), [Buffer.from('ab\r\n')]);

    expect(a.hash).not.toBe(b.hash);
  });
});

/** Signature headers that make the verifier hash the body every way it can (no key needed). */
function withSignatures(message: Buffer, body: Buffer): Buffer {
  const rows = [];
  for (const c of ['relaxed/relaxed', 'simple/simple', 'relaxed/simple', 'simple/relaxed']) {
    for (const a of ['rsa-sha256', 'rsa-sha1']) {
      for (const l of ['', '; l=0', '; l=3', `; l=${Math.floor(body.length / 2)}`]) {
        rows.push(
          `DKIM-Signature: v=1; a=${a}; c=${c}; d=example.com; s=sel; h=from:subject${l}; bh=AAAA; b=${Buffer.from(`${c}${a}${l}`).toString('base64')}\r\n`,
        );
      }
    }
  }
  return Buffer.concat([Buffer.from(rows.join('')), message]);
}

const NO_KEYS: DnsResolver = (name) => Promise.reject(Object.assign(new Error(`${name}: no such record`), { code: 'ENOTFOUND' }));

function streamOf(chunks: readonly Buffer[]): Readable {
  return Readable.from(chunks, { objectMode: false });
}

async function bothVerifiers(message: Buffer, resolver: DnsResolver, seed: number): Promise<void> {
  for (const chunks of chunkings(message, mulberry32(seed))) {
    const expected = await dkimVerify(streamOf(chunks), { resolver, sender: 'joe@example.com' });
    const actual = await verifyDkim(streamOf(chunks), { resolver, sender: 'joe@example.com' }, createParsedKeyCache(resolver));

    expect(JSON.parse(JSON.stringify(actual))).toEqual(JSON.parse(JSON.stringify(expected)));
  }
}

describe.skipIf(PEER_DKIM === undefined)('whole messages: the fast verifier equals mailauth’s, every body hash and length', () => {
  it.each(PEER_MESSAGES)('peer DKIM corpus: %s', async (file) => {
    const message = readFileSync(join(PEER_DKIM ?? '', file));
    const body = message.subarray(Math.max(0, message.indexOf('\n\n'), message.indexOf('\r\n\r\n')));

    await bothVerifiers(withSignatures(message, body), NO_KEYS, SEED);
  });
});

describe('whole messages with generated bodies: the fast verifier equals mailauth’s', () => {
  it.each(generatedBodies())('%s, as plain text and as a multipart body', async (_name, body) => {
    const plain = Buffer.concat([Buffer.from('From: joe@example.com\r\nSubject: test\r\n\r\n'), body]);
    const multipart = Buffer.concat([
      Buffer.from('From: joe@example.com\r\nSubject: test\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\npreamble\r\n--b1\r\n\r\n'),
      body,
      Buffer.from('\r\n--b1--\r\n'),
    ]);
    for (const message of [plain, multipart, Buffer.from(plain.toString('latin1').replaceAll('\r\n', '\n'), 'latin1')]) {
      await bothVerifiers(withSignatures(message, body), NO_KEYS, SEED + body.length);
    }
  });
});

const SESSION = { ip: '127.0.0.1', helo: 'mta.example', mta: 'mx.intake.example', maxElapsedTime: 20_000 };

async function bothAuthenticate(message: Buffer, resolver: DnsResolver, sender: string): Promise<void> {
  const options = { ...SESSION, ip: FIXTURE_SESSION.ip, helo: FIXTURE_SESSION.helo, sender, resolver };
  const expected = await authenticate(message, {
    ...options,
    trustReceived: false,
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  });
  const keyCache = createParsedKeyCache(resolver);
  for (let round = 0; round < 2; round++) {
    // the second round takes the key from the shared cache
    const actual = await authenticateFast(message, options, keyCache);
    expect(JSON.parse(JSON.stringify(actual))).toEqual(JSON.parse(JSON.stringify(expected)));
  }
}

describe('the whole authentication result equals mailauth’s authenticate()', () => {
  const zone = loadZoneResolver(join(FIXTURES_DIR, 'zone.json'));
  const emlFiles = readdirSync(join(FIXTURES_DIR, 'eml')).filter((f) => f.endsWith('.eml'));

  it.each(emlFiles)('fixture %s', async (file) => {
    const spec = FIXTURES.find((f) => f.file === file);
    await bothAuthenticate(readFileSync(join(FIXTURES_DIR, 'eml', file)), zone, spec?.envelopeSender ?? 'letters@acme.example');
  });

  it.skipIf(PEER_DKIM === undefined).each(['mailauth/ec/signed.eml', 'dkimpy/rfc6376.signed.msg'])(
    'signed peer message %s, keys from its project',
    async (file) => {
      const records = z
        .record(z.string(), z.unknown())
        .parse(JSON.parse(readFileSync(join(PEER_DKIM ?? '', 'mailauth/ec/dns.json'), 'utf8')));
      const zone = {
        ...records,
        'test._domainkey.football.example.com': { TXT: [readFileSync(join(PEER_DKIM ?? '', 'dkimpy/test.txt'), 'utf8').trim()] },
      };
      await bothAuthenticate(readFileSync(join(PEER_DKIM ?? '', file)), createZoneResolver(zone), 'joe@football.example.com');
    },
  );
});
