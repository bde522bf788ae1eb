// Encryption at rest on the whole path: a letter over SMTP → raw store → worker → sandbox API,
// with RAW_STORE_KEY set and without. The store's files (blob and markers) are searched for the
// subject, the body and the PDF as the message carries it (its first base64 line): found without
// the key, found nowhere with it, and the letter is made either way. S3 gets the server-side
// encryption asked for on every put.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { keyringOf } from '../../src/raw-store/sealing/keyring.js';
import { rekeyMarkers } from '../../src/raw-store/sealing/rekey.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway, testRawDir } from '../helpers/gateway.js';
import { letterPdf } from '../helpers/pdf-samples.js';
import { randomPrefix } from '../helpers/redis.js';
import { randomS3Url, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const KEY = Buffer.alloc(32, 42).toString('base64');
const SUBJECT = 'Kontoauszug Meyer 4711-0815';
const BODY = 'Sehr geehrte Frau Meyer, anbei Ihr Kontoauszug.';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Which of the needles any file under dir holds (grep -r, as an operator with the disk would). */
function grep(dir: string, needles: readonly string[]): string[] {
  const contents = filesUnder(dir).map((f) => readFileSync(f));
  return needles.filter((needle) => contents.some((c) => c.includes(Buffer.from(needle))));
}

async function deliverAndSettle(gateway: TestGateway, pdf: Buffer) {
  const replies = await sendOnce(gateway.port, {
    from: 'letters@acme.example',
    to: [PROCESSING_ADDRESS],
    raw: await signedLetter({ title: SUBJECT, text: BODY, pdf }),
    helo: 'mta.acme.example',
  });
  return gateway.settled(intakeIdOf(replies.data?.text ?? ''), 60_000);
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe.each([
  ['without RAW_STORE_KEY', false],
  ['with RAW_STORE_KEY', true],
])('a letter stored %s', (_name, sealed) => {
  it(
    sealed
      ? 'leaves neither subject, body nor PDF readable in any file, and still becomes a letter'
      : 'leaves subject, body and PDF readable in the files',
    async () => {
      const prefix = randomPrefix();
      const dir = testRawDir(`${prefix}-sealing`);
      const rawStore = openRawStore({
        location: parseRawStoreUrl(pathToFileURL(dir).href),
        timeoutMs: 5000,
        s3PathStyle: false,
        keyring: sealed ? keyringOf([KEY], 'RAW_STORE_KEY') : undefined,
      });
      gateway = await startTestGateway({ worker: true, rawStore });
      const pdf = await letterPdf();
      const pdfLine = pdf.toString('base64').slice(0, 76);
      const record = await deliverAndSettle(gateway, pdf);
      expect(record.state).toBe('submitted');
      const files = filesUnder(dir);
      expect(files.some((f) => f.endsWith('.eml'))).toBe(true);
      expect(files.some((f) => f.includes('accepted'))).toBe(true);
      expect(grep(dir, [SUBJECT, BODY, pdfLine])).toEqual(sealed ? [] : [SUBJECT, BODY, pdfLine]);
      // the worker read it back: the letter carries the PDF and the subject
      const letter = gateway.sandbox?.store.allLetters().find((l) => l.title === SUBJECT);
      expect(letter).toBeDefined();
      rawStore.close();
    },
  );
});

/** A loopback HTTP proxy in front of s3rver that records each request's method, URL and headers. */
async function recordingProxy(target: string): Promise<{ url: string; requests: IncomingMessage[]; close: () => Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    const upstream = httpRequest(`${target}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((ok) => server.close(() => ok())) };
}

describe('S3 server-side encryption', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.stop();
  });

  it.each([
    [{ mode: 'AES256' } as const, { 'x-amz-server-side-encryption': 'AES256' }],
    [
      { mode: 'aws:kms', kmsKeyId: 'alias/letter-intake' } as const,
      { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'alias/letter-intake' },
    ],
  ])('asks for %o on every put: a small blob, a large one (multipart) and a marker', async (sse, headers) => {
    const proxy = await recordingProxy(s3.endpoint);
    const store = openRawStore({
      location: parseRawStoreUrl(randomS3Url()),
      timeoutMs: 10_000,
      s3PathStyle: true,
      s3Client: { ...s3.client, endpoint: proxy.url },
      s3Sse: sse,
    });
    try {
      for (const size of [1000, 6 * 1024 * 1024]) {
        const write = store.begin();
        await write.write(Buffer.alloc(size, 97));
        await write.commit();
      }
      await store.putMarker('ended', 'in0123', '{}', 'replace');
      const puts = proxy.requests.filter(
        (r) => (r.method === 'PUT' && !(r.url ?? '').includes('partNumber=')) || (r.method === 'POST' && (r.url ?? '').includes('uploads')),
      );
      expect(puts.length).toBeGreaterThanOrEqual(3); // PutObject, CreateMultipartUpload, the marker's PutObject
      for (const put of puts) expect(Object.fromEntries(Object.keys(headers).map((h) => [h, put.headers[h]]))).toEqual(headers);
    } finally {
      store.close();
      await proxy.close();
    }
  });
});

describe('a key rotation', () => {
  it('reads what the old key sealed, and after rekey the markers open under the new key alone', async () => {
    const dir = testRawDir(`${randomPrefix()}-rekey`);
    const open = (keys: readonly string[]) =>
      openRawStore({
        location: parseRawStoreUrl(pathToFileURL(dir).href),
        timeoutMs: 5000,
        s3PathStyle: false,
        keyring: keyringOf(keys, 'test'),
      });
    const NEW = Buffer.alloc(32, 43).toString('base64');
    const before = open([KEY]);
    await before.putMarker('accepted', 'in0001', '{"subject":"Kontoauszug"}', 'replace');
    const write = before.begin();
    await write.write(Buffer.from('Subject: Kontoauszug\r\n\r\nbody\r\n'));
    await write.commit();
    before.close();
    const rotated = open([KEY, NEW]);
    expect(await rotated.getMarker('accepted', 'in0001')).toBe('{"subject":"Kontoauszug"}');
    expect((await rotated.readBuffer(write.key))?.toString()).toContain('Kontoauszug');
    const plain = openRawStore({ location: parseRawStoreUrl(pathToFileURL(dir).href), timeoutMs: 5000, s3PathStyle: false });
    expect(await rekeyMarkers(plain, keyringOf([KEY, NEW], 'test'))).toEqual({ rewritten: 1, current: 0, gone: 0, failed: [] });
    plain.close();
    rotated.close();
    const newOnly = open([NEW]);
    expect(await newOnly.getMarker('accepted', 'in0001')).toBe('{"subject":"Kontoauszug"}');
    await expect(newOnly.readBuffer(write.key)).rejects.toThrow(/not among RAW_STORE_KEYS/);
    newOnly.close();
  });
});
