// Whether an intake's outcome earns its sender a notice, as a pure decision (docs/design.md §2.7, §11).
// A notice goes only to the authenticated From address, never to an address the message's
// author could choose otherwise (Reply-To, the envelope), and never where it could start a mail
// loop or answer a machine: a null envelope sender (RFC 5321 §4.5.5: bounces are not answered),
// `Auto-Submitted` other than `no` (RFC 3834 §2), `Precedence: bulk | list | junk`.
import type { IntakeRecord } from '../intake/record.js';
import type { NoticeKind } from '../words/notice-kind.js';
import { headerValues } from './original-headers.js';

/** What a sender asked for in the directory (`"notify": ["submitted"]`). */
export interface NoticePrefs {
  readonly notify: readonly NoticeKind[];
}

export type NoticeDecision = { readonly due: true; readonly to: string } | { readonly due: false; readonly reason: string };

/**
 * Bad news is always told; good news to senders who asked for it, and always after a failure
 * (`afterFailure`: the intake left `failed`): its sender was told to wait for it.
 */
export function wantsNotice(kind: NoticeKind, prefs: NoticePrefs | undefined, afterFailure: boolean): boolean {
  return kind !== 'submitted' || afterFailure || (prefs?.notify.includes('submitted') ?? false);
}

/** The intake left `failed` before (a replay or a re-delivery): its record keeps the failed run. */
export const leftFailed = (record: Pick<IntakeRecord, 'earlierRuns'>): boolean => (record.earlierRuns?.length ?? 0) > 0;

const AUTH_CHECKS = ['from', 'spf', 'alignment', 'dkim'] as const;
const BULK_PRECEDENCE = new Set(['bulk', 'list', 'junk']);

export function noticeFor(
  record: IntakeRecord,
  kind: NoticeKind,
  prefs: NoticePrefs | undefined,
  originalHeaders: string | undefined,
): NoticeDecision {
  const no = (reason: string): NoticeDecision => ({ due: false, reason });
  // A replay can change the outcome while the notice waits: only the current outcome is told.
  if (record.state !== kind) return no(`the intake is now ${record.state}, not ${kind}`);
  if (!wantsNotice(kind, prefs, leftFailed(record))) return no('the sender did not ask for confirmations');
  // A letter uploaded on the sender portal: its user signed in (no e-mail authentication to prove),
  // and its notices go to that user.
  if (record.channel === 'web') {
    return record.uploadedBy === undefined || record.uploadedBy === ''
      ? no('an upload without its user')
      : { due: true, to: record.uploadedBy };
  }
  const unproven = AUTH_CHECKS.filter((check) => !(record.auth[check] ?? '').startsWith('pass'));
  if (record.from === '' || unproven.length > 0) {
    return no(`the From address is not authenticated (${unproven.length > 0 ? unproven.join(', ') : 'no From'})`);
  }
  if (record.envelopeFrom === '') return no('null envelope sender (MAIL FROM:<>): a bounce is never answered');
  if (originalHeaders === undefined) return no('the original message is gone, so its headers cannot be checked');
  const autoSubmitted = headerValues(originalHeaders, 'auto-submitted')
    .map((v) => (v.split(';')[0] ?? '').trim().toLowerCase())
    .find((v) => v !== 'no');
  if (autoSubmitted !== undefined) return no(`Auto-Submitted: ${autoSubmitted} (RFC 3834: no replies to automatic mail)`);
  const precedence = headerValues(originalHeaders, 'precedence')
    .map((v) => v.trim().toLowerCase())
    .find((v) => BULK_PRECEDENCE.has(v));
  if (precedence !== undefined) return no(`Precedence: ${precedence} (no replies to list or bulk mail)`);
  return { due: true, to: record.from };
}
