// Identifier alignment (DMARC, RFC 7489 §3.1): relaxed means the same organizational domain,
// found with the Public Suffix List; strict means identical domains. mailauth's own helper is
// reused (tldts, with the same options mailauth's DMARC uses), not a hand-written suffix rule.
import { mailauthAligned } from '../fast-paths/index.js';

export type AlignmentMode = 'relaxed' | 'strict';

/** True when `domain` is aligned with `fromDomain` in `mode`; an empty domain never is. */
export function isAligned(domain: string, fromDomain: string, mode: AlignmentMode): boolean {
  if (domain.trim() === '' || fromDomain.trim() === '') return false;
  return mailauthAligned(domain, fromDomain, mode === 'strict');
}
