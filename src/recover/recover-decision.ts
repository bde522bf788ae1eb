// What `recover` does with one intake whose `accepted/` marker it found (docs/design.md §13): a
// pure decision from what Redis and the raw store say, each read by its key.
import type { EndedMarker, LetterMarker } from '../intake/markers.js';

export interface RecoverFacts {
  /** Redis holds a record for the intake: it is live, and recover leaves it alone. */
  readonly recordPresent: boolean;
  readonly ended: EndedMarker | undefined;
  readonly letter: LetterMarker | undefined;
  /** The blob `accepted/` names is in the store. */
  readonly blobPresent: boolean;
}

export type RecoverAction =
  /** Redis has the intake: nothing to do. */
  | { readonly kind: 'keep' }
  /** It ended with a letter or a rejection: rebuild the ended record so a re-delivery is recognized. */
  | { readonly kind: 'restore-ended'; readonly ended: EndedMarker & { readonly outcome: 'submitted' | 'rejected' | 'simulated' } }
  /** It ended failed: re-create it failed, with no job (an operator's replay reopens it). */
  | { readonly kind: 'restore-failed'; readonly ended: EndedMarker & { readonly outcome: 'failed' } }
  /** It never ended and its message is here: queue it, carrying the letter it may have. */
  | { readonly kind: 'queue'; readonly letter: LetterMarker | undefined }
  /** It never ended and its message is gone: failed RawMessageMissing, and an operator is alerted. */
  | { readonly kind: 'fail-missing'; readonly letter: LetterMarker | undefined };

export function decideRecovery(facts: RecoverFacts): RecoverAction {
  if (facts.recordPresent) return { kind: 'keep' };
  const { ended, letter } = facts;
  if (ended !== undefined) {
    const outcome = ended.outcome;
    if (outcome === 'failed') return { kind: 'restore-failed', ended: { ...ended, outcome } };
    return { kind: 'restore-ended', ended: { ...ended, outcome } };
  }
  return facts.blobPresent ? { kind: 'queue', letter } : { kind: 'fail-missing', letter };
}

/** Notice states after which a restored intake's notice is not queued again. */
const NOTICE_DONE = new Set(['sent', 'suppressed', 'unsent', 'unconfirmed']);

/**
 * What becomes of a restored intake's notice: queued again only while it may still be owed (not
 * done, and the intake ended within the notice's lifetime); otherwise it was decided long ago,
 * and sending it again would repeat news (`ended/` holds the state at the end, mostly `queued`).
 */
export function noticeOnRecovery(ended: EndedMarker, now: number, lifetimeMs: number): 'queue' | 'decided' {
  if (NOTICE_DONE.has(ended.notice ?? '')) return 'decided';
  return now - ended.at <= lifetimeMs ? 'queue' : 'decided';
}
