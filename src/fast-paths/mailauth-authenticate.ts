// Replaces: mailauth 7.1's authenticate() (lib/mailauth.js), for this project's options.
// Proved by: test/unit/dkim-body-hash-equivalence.test.ts (its authenticate() result, field by field).
//
// mailauth's authenticate() (lib/mailauth.js, 7.1) for the options this project uses, on the
// fast DKIM verifier: DKIM, then SPF, then the Received-SPF and Authentication-Results
// headers, composed as mailauth composes them. What authenticate.ts turns off (trustReceived,
// ARC, DMARC, BIMI, strict mode, sealing) is left out here rather than re-implemented. The
// equivalence test compares this with mailauth's own authenticate() result, field by field.

import { isIP } from 'node:net';
import libmime from 'libmime';
import type { KeyCache } from 'mailauth/lib/dkim/dkim-verifier.js';
import { parseReceived } from 'mailauth/lib/parse-received.js';
import { spf } from 'mailauth/lib/spf/index.js';
import { formatAuthservId } from 'mailauth/lib/tools.js';
import type { DnsResolver } from '../net/resolver.js';
import { verifyDkim } from './fast-dkim-verifier.js';

export interface MailauthOptions {
  readonly ip: string;
  readonly helo: string;
  readonly sender: string;
  readonly mta: string;
  readonly resolver: DnsResolver;
  /** Bound on the whole SPF evaluation in ms. */
  readonly maxElapsedTime: number;
}

const FOLD_AT = 160; // mailauth folds each resinfo at 160 characters

/** Same result shape as mailauth's authenticate() with trustReceived, ARC, DMARC and BIMI off. */
export async function authenticateFast(
  input: Buffer | NodeJS.ReadableStream,
  opts: MailauthOptions,
  keyCache?: KeyCache,
): Promise<unknown> {
  const authservId = formatAuthservId(opts.mta, false);
  const dkim = await verifyDkim(input, { resolver: opts.resolver, sender: opts.sender, strict: false }, keyCache);
  const receivedChain = dkim.headers?.parsed.filter((h) => h.key === 'received').map((h) => parseReceived(h.line));

  let helo = opts.helo;
  if (helo === '' && opts.ip !== '') helo = opts.ip;
  if (helo !== '' && isIP(helo) !== 0) helo = `[${helo}]`; // the bracket syntax, as mailauth
  const spfResult = await spf({
    ...opts,
    helo,
    strict: false,
    trustReceived: false,
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  });

  const resinfo = dkim.results.map((row) => libmime.foldLines(infoOf(row), FOLD_AT));
  const headers: string[] = [];
  if (spfResult !== false) {
    resinfo.push(libmime.foldLines(spfResult.info, FOLD_AT));
    headers.push(spfResult.header);
  }
  headers.push(`Authentication-Results: ${authservId};\r\n ${resinfo.join(';\r\n ')}`);
  return { dkim, spf: spfResult, dmarc: false, arc: false, bimi: false, receivedChain, headers: `${headers.join('\r\n')}\r\n` };
}

/** The verifier formats each row's resinfo into `info` (mailauth does the same). */
function infoOf(row: unknown): string {
  const info: unknown = typeof row === 'object' && row !== null ? Reflect.get(row, 'info') : undefined;
  return typeof info === 'string' ? info : '';
}
