// The boundary: every replacement of a dependency's internals (for speed), and every reach into a
// dependency's private modules, lives in this folder; the domain folders import only this file.
// One switch, FAST_PATHS (config.ts, docs/configuration.md; default on), picks per process:
//
//   what                           on (this folder)                        off (the stock library)
//   authentication (listener)      mailauth-authenticate.ts on the fast    mailauth's authenticate()
//                                  DKIM verifier, keys parsed once         (stock-authenticate.ts)
//   MAIL FROM SIZE= reply          mail-params-size-reply.ts (5.3.4)       smtp-server's own reply
//   base64 in the MIME walk        base64-counter.ts (counted)             the part's decoder (libbase64)
//   base64 in the worker's parse   base64-decode.ts (Node's decoder)       the part's decoder (libbase64)
//   Sender API requests            http-fetch.ts + json-text.ts            global fetch + JSON.stringify
//   V8 heaps of the gateway roles  heap-growth.ts                          V8's defaults
//   mailsplit body lines           in bulk (mailsplit-body-lines.ts)       line by line
//
// The two patches/ (mailsplit's and smtp-server's native searches) are applied at install; the
// CI leg that installs with --ignore-scripts runs the listener and worker suites without them.
// Each file names the stock code it replaces and the test that proves the two agree.
import type { Transform } from 'node:stream';
import type { KeyCache } from 'mailauth/lib/dkim/dkim-verifier.js';
import type { BodyCounter } from '../net/body-facts.js';
import type { DnsResolver } from '../net/resolver.js';
import type { AsciiPiecesBody } from './ascii-pieces-body.js';
import { Base64Counter } from './base64-counter.js';
import { decodePlainBase64 as decodeInPieces } from './base64-decode.js';
import { growHeapsAsAServer as growHeaps } from './heap-growth.js';
import { httpFetch } from './http-fetch.js';
import { jsonBody } from './json-text.js';
import { enhanceSizeReply as enhance } from './mail-params-size-reply.js';
import { authenticateFast, type MailauthOptions } from './mailauth-authenticate.js';
import { setMailsplitBodyLines } from './mailsplit-body-lines.js';
import { createParsedKeyCache } from './parsed-key-cache.js';
import { authenticateStock } from './stock-authenticate.js';
import { fastPathsOn, setFastPathsOn } from './switch.js';

export { mailauthAligned } from './mailauth-alignment.js';
export type { MailauthOptions } from './mailauth-authenticate.js';
export { fastPathsOn } from './switch.js';

/** DKIM keys shared across messages (mailauth's key-cache shape); opaque to the domain code. */
export type DkimKeyCache = KeyCache;
/** A request body sent as pieces, its length known up front (a ReadableStream for any fetch). */
export type PiecesBody = AsciiPiecesBody;

/** Sets FAST_PATHS for this process; the composition roots call it with the config's value. */
export function useFastPaths(on: boolean): void {
  setFastPathsOn(on);
  setMailsplitBodyLines(on);
}

/** The listener's and worker's heaps grow as a server's (heap-growth.ts); off: V8's defaults. */
export function growHeapsAsAServer(): void {
  if (fastPathsOn()) growHeaps();
}

/** mailauth's authenticate() result for one message (trustReceived, ARC, DMARC, BIMI off). */
export function authenticateWithMailauth(
  input: Buffer | NodeJS.ReadableStream,
  opts: MailauthOptions,
  keyCache?: DkimKeyCache,
): Promise<unknown> {
  return fastPathsOn() ? authenticateFast(input, opts, keyCache) : authenticateStock(input, opts);
}

/** Keys parsed once per record text for a listener's life; off: none (mailauth's cache per message). */
export function createDkimKeyCache(resolver: DnsResolver): DkimKeyCache | undefined {
  return fastPathsOn() ? createParsedKeyCache(resolver) : undefined;
}

/** Gives the connection's over-size `MAIL FROM … SIZE=` reply the enhanced code 5.3.4; off: smtp-server's reply. */
export function enhanceSizeReply<P, E extends { readonly code: number; readonly message: string }>(
  connection: { _validateMailParams(parsed: P): E | null },
  limit: number | undefined,
): void {
  if (fastPathsOn()) enhance(connection, limit);
}

/** The fetch the Sender API client sends with by default. */
export function senderApiFetch(): typeof fetch {
  return fastPathsOn() ? httpFetch : fetch;
}

/** A request's JSON body: a string, or (fast path, with documents) its pieces made as they are sent. */
export function jsonRequestBody(value: unknown): string | PiecesBody {
  return fastPathsOn() ? jsonBody(value) : JSON.stringify(value);
}

/** A base64 body's decoded length and first bytes without decoding it; undefined: use the part's decoder. */
export function countBase64Body(newDecoder: () => Transform): BodyCounter | undefined {
  return fastPathsOn() ? new Base64Counter(newDecoder) : undefined;
}

/** Plain base64 decoded by Node's decoder; undefined: not plain (or off), use the part's decoder. */
export function decodePlainBase64(bytes: Uint8Array): Buffer | undefined {
  return fastPathsOn() ? decodeInPieces(bytes) : undefined;
}
