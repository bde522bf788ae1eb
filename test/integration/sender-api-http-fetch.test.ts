// The client's own fetch over plain HTTP (src/sender-api/http-fetch.ts) writes each kind of body
// byte for byte with its length declared: an ASCII string (sent as latin1, in pieces), a string
// with non-ASCII characters (sent as UTF-8, whole), and bytes. A loopback server keeps what came.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/sender-api/http-fetch.js';

let server: Server;
let url: string;
const received: { contentLength: string | undefined; body: Buffer }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ contentLength: req.headers['content-length'], body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

const post = async (body: string | Buffer): Promise<{ contentLength: string | undefined; body: Buffer }> => {
  const response = await httpFetch(`${url}/api/v1/letters`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(await response.json()).toEqual({ ok: true });
  const last = received.at(-1);
  if (last === undefined) throw new Error('nothing reached the server');
  return last;
};

describe('httpFetch request bodies', () => {
  it('sends an ASCII string longer than many write pieces as its bytes', async () => {
    // 3 × 64 KiB and a remainder, with every ASCII character in it
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join('');
    const body = `{"base64Data":"${randomBytes(150_001).toString('base64')}","all":${JSON.stringify(ascii)}}`;
    const got = await post(body);
    expect(got.contentLength).toBe(String(body.length));
    expect(got.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it.each([
    ['Latin-1 characters', `{"title":"Rechnung f\u00fcr M\u00e4rz ${'x'.repeat(70_000)}"}`],
    ['characters beyond Latin-1 and a surrogate pair', `{"title":"\u201cOktober\u201d \u{1F4C4} ${'y'.repeat(70_000)}"}`],
  ])('sends a string with %s as its UTF-8 bytes', async (_name, body) => {
    const got = await post(body);
    const utf8 = Buffer.from(body, 'utf8');
    expect(got.contentLength).toBe(String(utf8.length));
    expect(got.body.equals(utf8)).toBe(true);
  });

  it('sends bytes as they are', async () => {
    const body = randomBytes(100_000);
    const got = await post(body);
    expect(got.contentLength).toBe('100000');
    expect(got.body.equals(body)).toBe(true);
  });
});
