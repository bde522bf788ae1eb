// Our relaxed body canonicalization (src/intake/relaxed-body.ts) against the reference: the
// body hash a relaxed/relaxed DKIM signature made by mailauth's signer carries (bh=, RFC 6376
// §3.7), on the fixtures and on bodies full of the cases canonicalization changes, each fed
// whole, at random cuts and in tiny pieces.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { describe, expect, it } from 'vitest';
import { loadKeys } from '../../fixtures/keys.js';
import { CONTENT_DIGEST_SCHEME, withContentDigest } from '../../src/intake/content-digest.js';
import { RelaxedBody } from '../../src/intake/relaxed-body.js';
import { headerBlockOf } from '../../src/mime/header-block.js';
import { chunkings } from '../helpers/chunkings.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const FIXTURES_DIR = join(import.meta.dirname, '../../fixtures');
const keys = loadKeys(join(FIXTURES_DIR, 'keys'));

/** The bh= of a relaxed/relaxed signature over `headers` + the empty line + `body`. */
async function signedBodyHash(body: Buffer, headers = 'From: a@acme.example\r\nSubject: s\r\n'): Promise<string> {
  const { signatures, errors } = await dkimSign(Buffer.concat([Buffer.from(`${headers}\r\n`), body]), {
    canonicalization: 'relaxed/relaxed',
    signTime: new Date('2026-11-02T08:00:00Z'),
    signatureData: [{ signingDomain: 'acme.example', selector: 'rsa2048', privateKey: keys['acme-rsa2048'].privatePem }],
  });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const bh = /\bbh=([^;]+)/.exec(signatures)?.[1];
  if (bh === undefined) throw new Error(`no bh= in ${signatures}`);
  return bh.replace(/\s+/g, '');
}

function ourBodyHash(chunks: readonly Buffer[]): string {
  const hash = createHash('sha256');
  const body = new RelaxedBody((canonical) => hash.update(canonical));
  for (const chunk of chunks) body.update(chunk);
  body.end();
  return hash.digest('base64');
}

const NAMED_BODIES: readonly (readonly [string, string])[] = [
  ['an empty body', ''],
  ['only line breaks', '\r\n\r\n\r\n'],
  ['only bare LFs', '\n\n\n'],
  ['one line without a line break', 'hello world'],
  ['a last line ending in one space', 'hello\r\nworld '],
  ['a last line ending in a tab', 'hello\r\nworld\t'],
  ['trailing empty lines', 'a\r\nb\r\n\r\n\r\n\r\n'],
  ['trailing lines of white space', 'a\r\n \r\n\t\r\n  \r\n'],
  ['empty lines inside the body', 'a\r\n\r\n\r\nb\r\n'],
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
  ['base64 lines', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx\r\n'.repeat(40)],
  ['quoted-printable with soft breaks', 'caf=C3=A9 au lait, tr=C3=A8s =\r\nbien=20\r\n=\r\n'],
  ['a long line with no line break', 'x'.repeat(5000)],
  ['many empty lines, then content', `${'\r\n'.repeat(40_000)}end\r\n`],
];

const WHITE_SPACE_HEAVY = ['a', 'b', ' ', ' ', '  ', '\t', '\r', '\n', '\r\n', '\r\n', '\r\n\r\n', 'QUJD', '=20'];

function generatedBodies(): (readonly [string, Buffer])[] {
  const random = mulberry32(20261125);
  const generated = Array.from({ length: 40 }, (_, i) => {
    let body = '';
    for (let n = 1 + Math.floor(random() * 400); n > 0; n--)
      body += WHITE_SPACE_HEAVY[Math.floor(random() * WHITE_SPACE_HEAVY.length)] ?? '';
    return [`random white-space body #${i + 1}`, Buffer.from(body, 'latin1')] as const;
  });
  return [...NAMED_BODIES.map(([name, body]) => [name, Buffer.from(body, 'latin1')] as const), ...generated];
}

const FIXTURE_FILES = readdirSync(join(FIXTURES_DIR, 'eml')).filter((f) => f.endsWith('.eml'));

function bodyOf(raw: Buffer): { headers: string; body: Buffer } {
  const end = /\r?\n\r?\n/.exec(raw.toString('latin1'));
  if (end === null) return { headers: raw.toString('latin1'), body: Buffer.alloc(0) };
  return { headers: `${raw.toString('latin1', 0, end.index)}\r\n`, body: raw.subarray(end.index + end[0].length) };
}

describe('relaxed body canonicalization equals the body hash of a relaxed DKIM signature', () => {
  it.each(generatedBodies())('%s', async (_name, body) => {
    const expected = await signedBodyHash(body);
    for (const chunks of chunkings(body, mulberry32(body.length))) expect(ourBodyHash(chunks)).toBe(expected);
  });

  it.each(FIXTURE_FILES)('fixture %s', async (file) => {
    const { headers, body } = bodyOf(readFileSync(join(FIXTURES_DIR, 'eml', file)));
    const expected = await signedBodyHash(body, headers);
    for (const chunks of chunkings(body, mulberry32(body.length))) expect(ourBodyHash(chunks)).toBe(expected);
  });
});

describe('the content digest on the way to the spool', () => {
  const nullSpool = {
    write: () => undefined,
    finish: () => Promise.reject(new Error('not used')),
    discard: () => Promise.resolve(),
    buffered: 0,
  };

  it.each(FIXTURE_FILES)('is the same for %s however its bytes are cut into writes', (file) => {
    const raw = readFileSync(join(FIXTURES_DIR, 'eml', file));
    const digests = chunkings(raw, mulberry32(raw.length)).map((chunks) => {
      const { spool, digest } = withContentDigest(nullSpool);
      for (const chunk of chunks) void spool.write(chunk);
      return digest(headerBlockOf(raw));
    });
    expect(new Set(digests.map((d) => d.sha256)).size).toBe(1);
    expect(digests[0]?.scheme).toBe(CONTENT_DIGEST_SCHEME);
  });
});
