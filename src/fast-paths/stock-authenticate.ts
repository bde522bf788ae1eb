// Not a replacement: mailauth's own authenticate() (lib/mailauth.js), with the options this
// project uses, for FAST_PATHS=off. The fast path (mailauth-authenticate.ts) gives the same
// result; test/unit/dkim-body-hash-equivalence.test.ts compares the two field by field.
// lib/mailauth.js rather than the package's main entry only for the typing (mailauth.d.ts):
// the package's own index.d.ts types the injected resolver's answers too narrowly.
import { authenticate } from 'mailauth/lib/mailauth.js';
import type { MailauthOptions } from './mailauth-authenticate.js';

/** mailauth's authenticate() with trustReceived, ARC, DMARC and BIMI off; mailauth keeps its own per-message key cache. */
export function authenticateStock(input: Buffer | NodeJS.ReadableStream, opts: MailauthOptions): Promise<unknown> {
  return authenticate(input, { ...opts, trustReceived: false, disableArc: true, disableBimi: true, disableDmarc: true });
}
