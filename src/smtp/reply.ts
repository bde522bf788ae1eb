// The one place SMTP replies are made. smtp-server hides enhanced status codes by default, so
// every reply text starts with its RFC 3463 code, written here.
import { IntakeError } from '../errors.js';

export interface SmtpServerError extends Error {
  responseCode: number;
}

/** The error smtp-server turns into a reply; anything unexpected becomes 451 4.3.0 (try later). */
export function replyFor(err: unknown): SmtpServerError {
  const known = err instanceof IntakeError ? err : new IntakeError('Unexpected', 'local error, try again later', { cause: err });
  return Object.assign(new Error(`${known.smtp.enhanced} ${known.message}`), { responseCode: known.smtp.code });
}

/** RFC 5321 §4.2.2 250 with RFC 3463 2.0.0: the message is ours now. */
export function acceptedReply(intakeId: string): string {
  return `2.0.0 queued as ${intakeId}`;
}
