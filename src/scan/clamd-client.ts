// A client of clamd's own protocol (clamd(8)): one connection per command, each command
// `z`-prefixed and NUL-terminated, each answer NUL-terminated. INSTREAM sends the data in chunks
// of a 4-byte big-endian length and the bytes, a zero length ending it; the answer is
// `stream: OK`, `stream: <signature> FOUND` or `… ERROR`. Every call is bounded: a time-out, a
// refused connection or an ERROR answer is ClamdUnavailable, never a clean verdict.
import { connect, type Socket } from 'node:net';
import type { ClamdAddress } from './clamd-address.js';

/** clamd did not answer, answered late, or answered with an error: nothing was judged. */
export class ClamdUnavailable extends Error {
  override readonly name = 'ClamdUnavailable';
}

export type StreamVerdict = { readonly clean: true } | { readonly clean: false; readonly signature: string };

/** clamd reads at most this much per chunk by default (its buffer); smaller chunks cost only frames. */
const CHUNK_BYTES = 64 * 1024;

/** Sends one command (and, for INSTREAM, the data) and resolves with clamd's answer, NUL and line end cut. */
function exchange(address: ClamdAddress, timeoutMs: number, send: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = address.kind === 'unix' ? connect({ path: address.path }) : connect({ host: address.host, port: address.port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err !== undefined) reject(err);
      else resolve(Buffer.concat(chunks).toString('utf8').replace(/\0/g, '').trim());
    };
    const timer = setTimeout(() => finish(new ClamdUnavailable(`clamd did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => send(socket));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunk.includes(0)) finish(undefined); // every answer ends in NUL
    });
    socket.on('error', (err) => finish(new ClamdUnavailable(`clamd is unreachable: ${err.message}`, { cause: err })));
    socket.on('close', () => finish(chunks.length > 0 ? undefined : new ClamdUnavailable('clamd closed the connection without an answer')));
  });
}

/** Streams `parts` (one file, in pieces) to clamd with INSTREAM and returns its verdict. */
export async function scanStream(address: ClamdAddress, parts: Iterable<Uint8Array>, timeoutMs: number): Promise<StreamVerdict> {
  const answer = await exchange(address, timeoutMs, (socket) => {
    socket.write('zINSTREAM\0');
    for (const part of parts) {
      for (let at = 0; at < part.length; at += CHUNK_BYTES) {
        const piece = part.subarray(at, at + CHUNK_BYTES);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(piece.length);
        socket.write(length);
        socket.write(piece);
      }
    }
    socket.write(Buffer.alloc(4)); // a zero length ends the stream
  });
  return verdictOf(answer);
}

/** clamd's INSTREAM answer as a verdict; anything but OK or FOUND (a size limit, an ERROR) is ClamdUnavailable. */
export function verdictOf(answer: string): StreamVerdict {
  if (/^stream: OK$/.test(answer)) return { clean: true };
  const found = /^stream: (.+) FOUND$/.exec(answer);
  if (found?.[1] !== undefined) return { clean: false, signature: found[1] };
  throw new ClamdUnavailable(`clamd could not scan the stream: ${answer}`);
}

/** PING → PONG: clamd is up. */
export async function pingClamd(address: ClamdAddress, timeoutMs: number): Promise<void> {
  const answer = await exchange(address, timeoutMs, (socket) => socket.write('zPING\0'));
  if (answer !== 'PONG') throw new ClamdUnavailable(`clamd answered PING with "${answer}"`);
}

/** VERSION: "ClamAV 1.4.6/<database version>/<database date>". */
export function clamdVersion(address: ClamdAddress, timeoutMs: number): Promise<string> {
  return exchange(address, timeoutMs, (socket) => socket.write('zVERSION\0'));
}
