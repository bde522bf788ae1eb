// The one place SMTP replies are made. smtp-server hides enhanced status codes by default, so
// every reply text starts with its RFC 3463 code, written here.
import { IntakeError, type IntakeErrorCode } from '../errors.js';

export interface SmtpServerError extends Error {
  responseCode: number;
}

/**
 * Failures of ours (a store's error, a bucket, a path, a stack) are no business of the client:
 * it gets one fixed sentence and a reference under which the log keeps the detail.
 */
const OURS: ReadonlySet<IntakeErrorCode> = new Set(['StorageUnavailable', 'ReplicasBehind', 'Unexpected']);

/** The error smtp-server turns into a reply; anything unexpected becomes 451 4.3.0 (try later). */
export function replyFor(err: unknown, sessionId: string): SmtpServerError & { readonly ref: string } {
  const known = err instanceof IntakeError ? err : new IntakeError('Unexpected', 'local error, try again later', { cause: err });
  const ref = known.intakeId ?? sessionId;
  const text = OURS.has(known.code) ? `temporarily unable to store the message (ref ${ref})` : known.message;
  return Object.assign(new Error(`${known.smtp.enhanced} ${text}`), { responseCode: known.smtp.code, ref });
}

/** RFC 5321 §4.2.2 250 with RFC 3463 2.0.0: the message is ours now. */
export function acceptedReply(intakeId: string): string {
  return `2.0.0 queued as ${intakeId}`;
}
