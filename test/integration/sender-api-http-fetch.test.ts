// The client's own fetch over plain HTTP (src/fast-paths/http-fetch.ts) writes each kind of body
// byte for byte with its length declared: an ASCII string (sent as latin1, in pieces), a string
// with non-ASCII characters (sent as UTF-8, whole), bytes, and a body with documents made in
// pieces as it is written (json-text.ts), which the global fetch must send the same way. A
// loopback server keeps what came; a paused one shows that the pieces wait for the socket.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AsciiPiecesBody } from '../../src/fast-paths/ascii-pieces-body.js';
import { httpFetch } from '../../src/fast-paths/http-fetch.js';
import { createLogger } from '../../src/log.js';
import { BASE64_SLICE_BYTES, Base64Data } from '../../src/net/base64-data.js';
import { callApi } from '../../src/sender-api/transport.js';

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

// The JSON text the API must receive, ASCII only: JSON.stringify with each document as its
// base64, then every character above U+007F as its \u escape.
const asciiJson = (value: unknown): string =>
  JSON.stringify(value, (_key, field: unknown) => (field instanceof Base64Data ? String(field) : field)).replace(
    /[^\x20-\x7f]/g, // JSON.stringify escapes the control characters below U+0020
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

const fetches: [string, typeof fetch][] = [
  ['httpFetch', httpFetch],
  ['the global fetch', (input, init) => fetch(input, init)],
];

describe.each(fetches)('request bodies with documents, sent by the transport through %s', (_name, fetchOfTest) => {
  const send = async (body: unknown): Promise<{ contentLength: string | undefined; body: Buffer }> => {
    const deps = {
      baseUrl: new URL(url),
      fetch: fetchOfTest,
      clock: Date.now,
      timeoutMs: 10_000,
      logger: createLogger({ level: 'silent' }),
      onCall: undefined,
    };
    const request = { method: 'POST', path: '/api/v1/letters', endpoint: 'POST /api/v1/letters', body } as const;
    expect(await callApi(deps, request, z.object({ ok: z.boolean() }))).toEqual({ ok: true });
    const last = received.at(-1);
    if (last === undefined) throw new Error('nothing reached the server');
    return last;
  };
  const letter = (...documents: Base64Data[]): unknown => ({
    title: 'Rechnung “März” \u{1F4C4}',
    // long enough that even the smallest documents go as a stream of pieces
    description: `Zeile \u00fc ${'text '.repeat(15_000)}`,
    parts: documents.map((base64Data, index) => ({ fileName: `${index}-\u00e4.pdf`, mimeType: 'application/pdf', base64Data })),
  });

  it.each([
    0,
    1,
    2,
    3,
    BASE64_SLICE_BYTES - 1,
    BASE64_SLICE_BYTES,
    BASE64_SLICE_BYTES + 1,
    3 * BASE64_SLICE_BYTES + 1,
    5 * BASE64_SLICE_BYTES + 2,
  ])('sends a letter with a document of %i bytes as its JSON text, byte for byte, with its length declared', async (size) => {
    const body = letter(new Base64Data(randomBytes(size)));
    const got = await send(body);
    const expected = Buffer.from(asciiJson(body), 'latin1');
    expect(got.contentLength).toBe(String(expected.length));
    expect(got.body.equals(expected)).toBe(true);
  });

  it('sends several documents, a large one among them, byte for byte', async () => {
    const sizes = [2, 10 * BASE64_SLICE_BYTES + 1, 0, BASE64_SLICE_BYTES, 1_000_003];
    const body = letter(...sizes.map((size) => new Base64Data(randomBytes(size))));
    const got = await send(body);
    const expected = Buffer.from(asciiJson(body), 'latin1');
    expect(got.contentLength).toBe(String(expected.length));
    expect(got.body.equals(expected)).toBe(true);
  });

  it('sends a short body with a small document as one string, byte for byte', async () => {
    const body = { title: '\u00e9', parts: [{ base64Data: new Base64Data(randomBytes(100)) }] };
    const got = await send(body);
    expect(got.contentLength).toBe(String(asciiJson(body).length));
    expect(got.body.toString('latin1')).toBe(asciiJson(body));
  });
});

describe('httpFetch and a body whose pieces do not add up to its declared length', () => {
  // the pieces make 12 bytes
  it.each([
    ['fewer', 13],
    ['more', 11],
  ])('fails the request at once when the pieces have %s bytes than declared', async (_name, declared) => {
    const body = new AsciiPiecesBody(declared, () => ['{"a":', '"bcde"}']);
    await expect(httpFetch(`${url}/api/v1/letters`, { method: 'POST', body, signal: AbortSignal.timeout(2000) })).rejects.toMatchObject({
      code: 'ERR_HTTP_CONTENT_LENGTH_MISMATCH',
    });
  });
});

describe('httpFetch and a server that stops reading', () => {
  const PIECE_CHARS = 64 * 1024;
  const PIECES = 512; // 32 MiB: far more than the loopback socket's buffers hold while the server reads nothing
  const pieceOf = (index: number): string => `${index.toString(36).padStart(4, '0')}`.repeat(PIECE_CHARS / 4);

  let slow: Server;
  let paused: IncomingMessage | undefined;
  beforeEach(async () => {
    paused = undefined;
    slow = createServer((req, res) => {
      req.pause();
      paused = req;
      const hash = createHash('sha256');
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
      });
      req.on('end', () =>
        res.writeHead(200).end(JSON.stringify({ bytes, sha256: hash.digest('hex'), length: req.headers['content-length'] })),
      );
    });
    await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok));
  });
  afterEach(async () => {
    slow.closeAllConnections();
    await new Promise((ok) => slow.close(ok));
  });

  /** A body of PIECES pieces that counts the pieces made and whether the writer let go of it. */
  const countedBody = () => {
    const state = { made: 0, closed: false, expected: createHash('sha256') };
    const body = new AsciiPiecesBody(PIECES * PIECE_CHARS, function* () {
      try {
        for (let index = 0; index < PIECES; index += 1) {
          state.made += 1;
          const piece = pieceOf(index);
          state.expected.update(piece, 'latin1');
          yield piece;
        }
      } finally {
        state.closed = true;
      }
    });
    return { body, state };
  };

  /** Waits until the server has the request and the writer has stopped making pieces. */
  const untilStalled = async (state: { made: number }): Promise<IncomingMessage> => {
    let seen = -1;
    while (paused === undefined || state.made !== seen) {
      seen = state.made;
      await new Promise((ok) => setTimeout(ok, 200));
    }
    return paused;
  };

  it('makes the pieces only as the socket takes them, and the body arrives whole once the server reads again', async () => {
    const { body, state } = countedBody();
    const answer = httpFetch(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, { method: 'POST', body });

    const request = await untilStalled(state);
    expect(state.made).toBeGreaterThan(0);
    expect(state.made).toBeLessThan(PIECES / 2);

    request.resume();
    const response = await answer;
    expect(await response.json()).toEqual({
      bytes: PIECES * PIECE_CHARS,
      sha256: state.expected.digest('hex'),
      length: String(PIECES * PIECE_CHARS),
    });
    expect(state).toMatchObject({ made: PIECES, closed: true });
  });

  it('stops making pieces when the request is aborted while it waits for the socket', async () => {
    const { body, state } = countedBody();
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const answer = httpFetch(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, {
      method: 'POST',
      body,
      signal: controller.signal,
    });

    await untilStalled(state);
    const madeBefore = state.made;
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
    await new Promise((ok) => setTimeout(ok, 100));
    expect(state).toMatchObject({ made: madeBefore, closed: true });
  });
});
