// Replaces: the global fetch (undici) for the Sender API client.
// Proved by: test/integration/sender-api-http-fetch.test.ts (the bytes each body puts on the wire; the global fetch sends the same pieces body).
//
// The Sender API client's default `fetch`: the same contract (a Request's URL and init in, a
// Response out, rejecting on network errors and on abort), carried by node:http and node:https.
// Measured on this project's letters, the global fetch costs about 60 ms of CPU to send a
// 13.7 MB JSON body (it copies the body through web streams several times) where node:http
// writes the same bytes in about 3 ms, and about 0.5 ms more on every small call.
// Only what the transport uses is supported: string or byte bodies, an AsciiPiecesBody (a body
// with documents: its pieces are written, not its web stream), headers as a record, `signal`;
// redirects are never followed (the transport asks for 'manual'). Strings are written to the
// socket without a Buffer of their own (node:http encodes them outside the V8 heap): a 13.7 MB
// Buffer per letter made V8 collect its old generation far more often.
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { AsciiPiecesBody } from './ascii-pieces-body.js';

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

export const httpFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const signal = init?.signal ?? undefined;
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const body = bodyOf(init?.body);
    const headers: Record<string, string> = { ...headerRecord(init?.headers) };
    const length = body === undefined ? 0 : byteLengthOf(body);
    if (body !== undefined) headers['content-length'] = String(length);
    const https = url.protocol === 'https:';
    const request = (https ? httpsRequest : httpRequest)(url, {
      method: init?.method ?? 'GET',
      headers,
      agent: https ? httpsAgent : httpAgent,
    });
    const onAbort = (): void => {
      request.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.once('close', () => signal?.removeEventListener('abort', onAbort));
    request.once('error', reject);
    request.once('response', (response: IncomingMessage) => {
      response.once('error', () => undefined); // surfaced to the reader through the web stream
      try {
        resolve(toResponse(response));
      } catch (err) {
        // e.g. a status the Response type refuses (over 599): a broken endpoint, a network error
        response.destroy();
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    endWith(request, body, length);
  });

/** Below V8's and malloc's large-object sizes: the pieces' bytes are encoded into reused memory. */
const ASCII_PIECE_CHARS = 64 * 1024;

/**
 * Writes the body and ends the request. A string of ASCII characters only (as many UTF-8 bytes as
 * characters: `byteLength` is its length; json-text.ts makes every request body so) goes out as
 * latin1, its bytes as they are, in 64 KiB pieces (slices, not copies). Measured on a 13.7 MB
 * body: one UTF-8 write cost 28 ms of CPU, one latin1 write 13.5 ms (most of it the kernel
 * mapping and faulting in a fresh 13.7 MB buffer), latin1 pieces 5 ms. Any other string is
 * written whole as UTF-8 (a cut could split a surrogate pair). An AsciiPiecesBody's pieces are
 * written the same way as they are made, waiting for 'drain' whenever the socket's buffer is full.
 */
function endWith(request: ClientRequest, body: string | Buffer | AsciiPiecesBody | undefined, byteLength: number): void {
  if (body === undefined) {
    request.end();
  } else if (body instanceof AsciiPiecesBody) {
    writePieces(request, body.takePieces(), byteLength).catch((err: unknown) => {
      request.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  } else if (typeof body !== 'string') {
    request.end(body);
  } else if (byteLength !== body.length) {
    request.end(body, 'utf8');
  } else {
    for (let at = 0; at < body.length; at += ASCII_PIECE_CHARS) request.write(body.slice(at, at + ASCII_PIECE_CHARS), 'latin1');
    request.end();
  }
}

/**
 * How far the pieces may run ahead of the socket. The socket's own mark (64 KiB: one piece) would
 * wait after every piece, one write call each; letting a few pieces gather in the same tick
 * writes them in one writev call. Measured sending a 10 MB document twice to a loopback server:
 * 27-31 ms of CPU waiting at every piece, 21-22 ms with 256 KiB (1 MiB did no better).
 */
const WRITE_AHEAD_BYTES = 256 * 1024;

/**
 * Writes the pieces, waiting for 'drain' once WRITE_AHEAD_BYTES wait to be written, and stops if the request
 * is destroyed. Pieces that do not add up to the declared length fail the request: a shorter body
 * would leave the server waiting for the rest until the timeout, a longer one would spill into
 * the next request on the connection.
 */
async function writePieces(request: ClientRequest, pieces: Iterator<string>, byteLength: number): Promise<void> {
  let written = 0;
  try {
    while (!request.destroyed) {
      const next = pieces.next();
      if (next.done === true) break;
      written += next.value.length;
      if (written > byteLength) throw lengthMismatch(byteLength, 'more');
      const full = !request.write(next.value, 'latin1');
      if (full && request.writableLength >= WRITE_AHEAD_BYTES) await drained(request);
    }
    if (request.destroyed) return;
    if (written < byteLength) throw lengthMismatch(byteLength, 'fewer');
    request.end();
  } finally {
    pieces.return?.();
  }
}

function lengthMismatch(byteLength: number, moreOrFewer: 'more' | 'fewer'): Error {
  return Object.assign(new Error(`the request body has ${moreOrFewer} bytes than the ${byteLength} declared`), {
    code: 'ERR_HTTP_CONTENT_LENGTH_MISMATCH',
  });
}

/** Resolves on 'drain', or on 'close' (an aborted or failed request never drains). */
function drained(request: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      request.off('drain', done);
      request.off('close', done);
      resolve();
    };
    request.on('drain', done);
    request.on('close', done);
  });
}

function toResponse(response: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = response.statusCode ?? 0;
  // A Response may not carry a body with these statuses.
  const empty = status === 204 || status === 205 || status === 304;
  if (empty) response.resume();
  const stream: ReadableStream<Uint8Array> | null = empty ? null : Readable.toWeb(response);
  return new Response(stream, { status, statusText: response.statusMessage ?? '', headers });
}

function bodyOf(body: RequestInit['body']): string | Buffer | AsciiPiecesBody | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof AsciiPiecesBody) return body;
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('httpFetch sends string, byte or AsciiPiecesBody bodies only');
}

function byteLengthOf(body: string | Buffer | AsciiPiecesBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  return body.byteLength;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}
