// The error catalog: one class per failure kind, each with a stable code and the SMTP reply it
// becomes (4xx: the sender's MTA tries again later; 5xx: it will not).
// Callers branch on `code`, never on message text.

export interface SmtpReply {
  /** RFC 5321 basic reply code. */
  readonly code: number;
  /** RFC 3463 enhanced status code, written into the reply text ourselves. */
  readonly enhanced: string;
}

interface CatalogEntry {
  readonly smtp: SmtpReply;
}

export const ERROR_CATALOG = {
  // RFC 5321 §4.2.3 / RFC 3463: 550 5.1.1 bad destination mailbox.
  RecipientNotAccepted: { smtp: { code: 550, enhanced: '5.1.1' } },
  // RFC 5321 §4.5.3.1.10 / RFC 1870: 552 for too much mail data; RFC 3463 5.3.4 too big for system.
  MessageTooLarge: { smtp: { code: 552, enhanced: '5.3.4' } },
  // RFC 5321 §4.5.3.1.6 (a text line is at most 1000 octets) / RFC 3463 5.6.0 other media error:
  // a line past MAX_LINE_BYTES, refused because DKIM canonicalization is quadratic in line length.
  LineTooLong: { smtp: { code: 554, enhanced: '5.6.0' } },
  // RFC 7372 / RFC 3463: 5.7.1 delivery not authorized (SPF, DKIM, alignment).
  AuthenticationFailed: { smtp: { code: 550, enhanced: '5.7.1' } },
  // RFC 3463 4.7.0: temporary security failure (DNS time-out or SERVFAIL during SPF/DKIM).
  AuthenticationTemporary: { smtp: { code: 451, enhanced: '4.7.0' } },
  // RFC 3463 4.3.0: temporary mail system failure (Redis unreachable or slow, anything unexpected).
  StorageUnavailable: { smtp: { code: 451, enhanced: '4.3.0' } },
  Unexpected: { smtp: { code: 451, enhanced: '4.3.0' } },
  // RFC 5321 §3.8: 421 service not available, closing channel.
  ShuttingDown: { smtp: { code: 421, enhanced: '4.3.2' } },
  TooManyConnections: { smtp: { code: 421, enhanced: '4.7.0' } },
} as const satisfies Record<string, CatalogEntry>;

export type IntakeErrorCode = keyof typeof ERROR_CATALOG;

export class IntakeError extends Error {
  override readonly name = 'IntakeError';
  readonly smtp: SmtpReply;

  constructor(readonly code: IntakeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.smtp = ERROR_CATALOG[code].smtp;
  }
}

/** Why an intake was rejected by the worker: stable codes shown in the record and metrics. */
export const REJECTION_REASONS = {
  SenderNotRegistered: 'The From address is not a registered address of any sender.',
  NoPdfAttachment: 'The message carries no PDF attachment.',
  NotAPdf: 'An attachment named or typed as PDF does not start with %PDF-.',
  PdfTooLarge: 'A PDF attachment is larger than the limit.',
  MissingSubject: 'The subject is empty; it becomes the letter title.',
  UnparseableMessage: 'The message could not be parsed as MIME.',
  ApiRejected: 'The Sender API refused the letter as invalid.',
  PdfDamaged: 'A PDF cannot be read as a PDF (truncated, broken, no pages), or is too complex to check within the limits.',
  PdfPasswordProtected: 'A PDF needs a password to open.',
  PdfActiveContent: 'A PDF carries JavaScript, a Launch action, embedded files, an XFA form or (unless allowed) form fields.',
} as const;

export type RejectionReason = keyof typeof REJECTION_REASONS;

/** A role cannot start: a dependency (Redis) did not answer in time. The message says which. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
