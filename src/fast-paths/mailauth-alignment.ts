// Not a replacement: mailauth's own identifier-alignment helper (lib/tools.js getAlignment, the
// one its DMARC uses: tldts with mailauth's options), reached in its private module because the
// package does not export it. Here so that only this folder imports mailauth/lib/.
// Checked by: test/unit/auth-verdict.test.ts (relaxed and strict alignment cases).
import { getAlignment } from 'mailauth/lib/tools.js';

/** True when `domain` is aligned with `fromDomain` (strict: identical; relaxed: same organizational domain). */
export function mailauthAligned(domain: string, fromDomain: string, strict: boolean): boolean {
  return getAlignment(fromDomain, [domain], strict) !== false;
}
