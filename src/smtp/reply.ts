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

/**
 * A refusal of several lines (the self-test's findings): RFC 5321 §4.2.1 multi-line reply, each
 * line with the enhanced code, ASCII only and at most 512 octets with code and CRLF (§4.5.3.1.5).
 */
export class MultiLineRefusal extends IntakeError {
  constructor(
    code: IntakeErrorCode,
    readonly lines: readonly string[],
  ) {
    super(code, lines.join('; '));
  }
}

/** RFC 5321 §4.5.3.1.5: 512 octets a reply line, less "550-5.7.1 " and CRLF. */
const LINE_TEXT_MAX = 512 - 'xyz-x.y.z '.length - 2 - 8;

/** The error smtp-server turns into a reply; anything unexpected becomes 451 4.3.0 (try later). */
export function replyFor(err: unknown, sessionId: string): SmtpServerError & { readonly ref: string } {
  const known = err instanceof IntakeError ? err : new IntakeError('Unexpected', 'local error, try again later', { cause: err });
  const ref = known.intakeId ?? sessionId;
  if (known instanceof MultiLineRefusal) {
    const reply = Object.assign(new Error(known.message), { responseCode: known.smtp.code, ref });
    // smtp-server writes an array as a multi-line reply ("550-…" then "550 …"), a string as one line.
    const lines = known.lines.map((line) => `${known.smtp.enhanced} ${asciiLine(line)}`);
    Object.defineProperty(reply, 'message', { value: lines });
    return reply;
  }
  const text = OURS.has(known.code) ? `temporarily unable to store the message (ref ${ref})` : known.message;
  return Object.assign(new Error(`${known.smtp.enhanced} ${text}`), { responseCode: known.smtp.code, ref });
}

/** RFC 5321 §4.2.2 250 with RFC 3463 2.0.0: the message is ours now. */
export function acceptedReply(intakeId: string): string {
  return `2.0.0 queued as ${intakeId}`;
}

/** A reply line's text: printable ASCII only, cut to what one line may hold. */
function asciiLine(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, LINE_TEXT_MAX);
}
