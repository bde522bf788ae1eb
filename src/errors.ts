// The catalog of stable codes: the listener's refusals (one IntakeError class, its `code` naming
// the row and the SMTP reply it becomes: 4xx, the sender's MTA tries again later; 5xx, it will
// not), the message's rules and rejection reasons, and the codes of failed intakes, abandoned
// notices and operator alerts. Callers branch on `code`, never on message text.

export interface SmtpReply {
  /** RFC 5321 basic reply code. */
  readonly code: number;
  /** RFC 3463 enhanced status code, written into the reply text ourselves. */
  readonly enhanced: string;
}

interface CatalogEntry {
  readonly smtp: SmtpReply;
}

/**
 * The message's own rules (docs/design.md §2.4), one row each: the reply when the listener refuses the
 * message in the SMTP session, what the rule says and what the sender should do. The reply text
 * and the worker's rejection sentence are both built from these rows (`ruleSentence`).
 */
export const MESSAGE_RULES = {
  // RFC 3463 5.7.1: delivery not authorized, message refused (the sender is not one of ours).
  SenderNotRegistered: {
    smtp: { code: 550, enhanced: '5.7.1' },
    says: 'the From address is not a registered address of any sender',
    todo: 'send from the address registered for your organization',
  },
  // RFC 3463 5.6.0: other or undefined media error (the content is not what the service takes).
  NoPdfAttachment: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'the message carries no PDF attachment',
    todo: 'attach the letter as a PDF (at most {maxPdf})',
  },
  NotAPdf: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'an attachment named or typed as PDF is not a PDF (it does not start with %PDF-)',
    todo: 'attach the letter itself as a PDF file, not another format renamed',
  },
  // RFC 3463 5.3.4: message too big for system.
  PdfTooLarge: {
    smtp: { code: 552, enhanced: '5.3.4' },
    says: 'a PDF attachment is larger than {maxPdf}',
    todo: 'send a smaller PDF',
  },
  MissingSubject: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'the subject is empty',
    todo: 'give the message a subject: it becomes the title of the letter',
  },
  // Limits of the real Sender API an operator stated (API_TITLE_MAX_CHARS, API_MAX_PARTS): the
  // contract states none, so these rules exist only when configured.
  TitleTooLong: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'the subject is longer than the Sender API takes as the title of a letter',
    todo: 'give the message a shorter subject',
  },
  TooManyPdfs: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'the message carries more PDF attachments than the Sender API takes in one letter',
    todo: 'send fewer PDFs in one message, or split the letter',
  },
  UnparseableMessage: {
    smtp: { code: 550, enhanced: '5.6.0' },
    says: 'the MIME structure of the message cannot be parsed',
    todo: 'send a well-formed MIME message (at most 1,000 parts, header blocks under 1 MiB)',
  },
} as const satisfies Record<string, CatalogEntry & { readonly says: string; readonly todo: string }>;

export type MessageRule = keyof typeof MESSAGE_RULES;

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
  // RFC 3463 5.7.1: a sender's own processing address written to by another (or no) sender, and
  // a sender that refuses the shared addresses writing to one (SENDERS_FILE, sharedAddress false).
  NotTheAddressOwner: { smtp: { code: 550, enhanced: '5.7.1' } },
  SharedAddressRefused: { smtp: { code: 550, enhanced: '5.7.1' } },
  // RFC 3463 4.7.1: a sender's own limit (SENDERS_FILE limits) is reached for now; its MTA
  // retries, and the reply says when there is room. One message larger than the hourly byte
  // limit never fits: 552 5.3.4, too big for the system.
  SenderLimitReached: { smtp: { code: 451, enhanced: '4.7.1' } },
  LargerThanSenderLimit: { smtp: { code: 552, enhanced: '5.3.4' } },
  // RFC 3463 4.7.0: temporary security failure (DNS time-out or SERVFAIL during SPF/DKIM).
  AuthenticationTemporary: { smtp: { code: 451, enhanced: '4.7.0' } },
  // RFC 3463 4.3.0: temporary mail system failure (Redis unreachable or slow, anything unexpected).
  StorageUnavailable: { smtp: { code: 451, enhanced: '4.3.0' } },
  // The record and job are on the primary but fewer replicas than REDIS_REPLICAS_ACK hold them in time.
  ReplicasBehind: { smtp: { code: 451, enhanced: '4.3.0' } },
  Unexpected: { smtp: { code: 451, enhanced: '4.3.0' } },
  // RFC 3463 5.0.0: the same message again after its intake was rejected; it can only fare the same.
  AlreadyRejected: { smtp: { code: 550, enhanced: '5.0.0' } },
  // RFC 3463 5.0.0: the same message again after its intake was erased on request; it is not taken again.
  Erased: { smtp: { code: 550, enhanced: '5.0.0' } },
  // RFC 5321 §4.2.3 452 insufficient system storage / RFC 3463 4.3.1 mail system full: the
  // listener's memory budget is spent by other messages in flight; the sender tries again later.
  MemoryBudgetExhausted: { smtp: { code: 452, enhanced: '4.3.1' } },
  // The self-test address (docs/sender-policy.md): RFC 7372 / RFC 3463 5.7.1, the failed checks named.
  SelfTestFailed: { smtp: { code: 550, enhanced: '5.7.1' } },
  // RFC 5321 §4.5.3.1.10 452 too many recipients / RFC 3463 4.5.3: the self-test and a letter apart.
  SelfTestWithLetter: { smtp: { code: 452, enhanced: '4.5.3' } },
  // RFC 3463 4.7.0 temporary security failure: too many self-tests from one network or From domain.
  SelfTestRateLimited: { smtp: { code: 450, enhanced: '4.7.0' } },
  // RFC 5321 §3.8: 421 service not available, closing channel.
  ShuttingDown: { smtp: { code: 421, enhanced: '4.3.2' } },
  TooManyConnections: { smtp: { code: 421, enhanced: '4.7.0' } },
  // The message's own rules, refused in the session.
  ...MESSAGE_RULES,
} as const satisfies Record<string, CatalogEntry>;

export type IntakeErrorCode = keyof typeof ERROR_CATALOG;

export class IntakeError extends Error {
  override readonly name = 'IntakeError';
  readonly smtp: SmtpReply;
  /** The intake the failure belongs to, once the message has one (a reference in replies and logs). */
  readonly intakeId: string | undefined;

  constructor(
    readonly code: IntakeErrorCode,
    message: string,
    options?: { cause?: unknown; intakeId?: string },
  ) {
    super(message, options);
    this.smtp = ERROR_CATALOG[code].smtp;
    this.intakeId = options?.intakeId;
  }
}

/** `err` as an IntakeError of the intake `intakeId` (anything not ours is Unexpected). */
export function ofIntake(err: unknown, intakeId: string): IntakeError {
  if (err instanceof IntakeError) return new IntakeError(err.code, err.message, { cause: err.cause, intakeId });
  return new IntakeError('Unexpected', 'local error, try again later', { cause: err, intakeId });
}

/** Why an intake was rejected: stable codes shown in the record and metrics. */
export const REJECTION_REASONS = {
  ...MESSAGE_RULES,
  ApiRejected: { says: 'the Sender API refused the letter as invalid', todo: 'correct what the message names and send again' },
  // The deep PDF checks (worker only: the listener never holds a whole PDF).
  PdfDamaged: {
    says: 'a PDF cannot be read as a PDF (truncated, broken, no pages), or is too complex to check within the limits',
    todo: 'export the letter to PDF again and send it again',
  },
  PdfPasswordProtected: {
    says: 'a PDF needs a password to open',
    todo: 'send the PDF without a password to open it (restricting printing or copying is fine)',
  },
  PdfActiveContent: {
    says: 'a PDF carries active content (JavaScript, a Launch action, embedded files, an XFA form or form fields)',
    todo: 'remove scripts, actions, attached files and form fields from the PDF and send it again',
  },
  // The malware scan (worker only, with CLAMD_URL): clamd named a signature in the message or a PDF.
  MalwareFound: {
    says: 'the malware scanner found a known threat in the message',
    todo: 'scan the computer that produced the letter, export the letter again and send it from a clean one',
  },
} as const satisfies Record<string, { readonly says: string; readonly todo: string }>;

export type RejectionReason = keyof typeof REJECTION_REASONS;

export interface RuleLimits {
  readonly maxPdfBytes: number;
}

/**
 * "<Code>: <what the rule says>; <what to do>", with the limits filled in. `detail` (the worker
 * names the attachment) goes in parentheses after what the rule says; SMTP replies get none,
 * so nothing the sender wrote is echoed into the session.
 */
export function ruleSentence(code: RejectionReason, limits: RuleLimits, detail?: string): string {
  const row = REJECTION_REASONS[code];
  const fill = (text: string): string => text.replaceAll('{maxPdf}', sizeInWords(limits.maxPdfBytes));
  return `${code}: ${fill(row.says)}${detail === undefined ? '' : ` (${detail})`}; ${fill(row.todo)}`;
}

/** 10485760 → "10 MiB"; sizes that are not whole MiB stay in bytes. */
export function sizeInWords(bytes: number): string {
  const mib = 1024 * 1024;
  return bytes % mib === 0 ? `${bytes / mib} MiB` : `${bytes} bytes`;
}

/** A role cannot start: a dependency (Redis) did not answer in time. The message says which. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * The worker no longer holds the intake (its job lock lapsed and another worker took it, or the
 * intake was ended elsewhere): it must stop without writing or calling the Sender API again.
 */
export class OwnershipLost extends Error {
  override readonly name = 'OwnershipLost';
}

/**
 * The letter shows a status that proves neither a draft nor a submit (worker/letter-statuses.ts):
 * the job reads it again after its backoff; its last attempt fails the intake UnknownLetterStatus.
 */
export class UnknownLetterStatus extends Error {
  override readonly name = 'UnknownLetterStatus';

  constructor(
    readonly letterId: string,
    readonly status: string,
  ) {
    super(`letter ${letterId} shows status ${JSON.stringify(status)}, which proves neither a draft nor a submit`);
  }
}

/**
 * Fewer replicas than REDIS_REPLICAS_ACK acknowledged a worker's checkpoint in time: the worker
 * must not go on to the Sender API call the checkpoint guards, since a failover could lose it.
 */
export class ReplicasBehind extends Error {
  override readonly name = 'ReplicasBehind';
}

/**
 * Why an intake ended `failed` without the Sender API saying so: stable codes in the record,
 * the logs and the operator alert metric.
 */
export const WORKER_FAILURES = {
  RawMessageMissing: 'The raw message is gone from the store.',
  ParserError: 'Reading the message failed with an error that is not a rule of the message (a defect to fix, then replay).',
  WorkerError: 'The worker failed with an unexpected error on every attempt.',
  JobAbandoned: 'The queue gave up on the job outside the worker (it stalled too often).',
  JobLost: 'The intake was left unfinished and its job no longer runs.',
  UnknownLetterStatus:
    "The letter shows a status that proves neither a draft nor a submit (not its draft status, not learned from a submit of ours, not one of the contract's), on every attempt: check the letter at the Sender API, then replay.",
  RawStoreSealBroken:
    'The raw message does not open under the raw store keys (altered, truncated, or sealed under a key missing from RAW_STORE_KEYS): nothing of it was read.',
} as const;

export type WorkerFailure = keyof typeof WORKER_FAILURES;

/**
 * Why a notice ended without its own processor saying so (notices/notice-sweep.ts): a stable code
 * in the logs and the operator alert metric; the notice entry carries the job's reason.
 */
export const NOTICE_FAILURES = {
  NoticeAbandoned:
    'The queue gave up on the notice outside its checkpoints (it stalled too often, or failed unexpectedly on its last attempt).',
} as const;

/**
 * Operator alerts that end no intake: the worker's Sender API circuit (worker/api-circuit.ts) is
 * open, so the queue waits for the API instead of spending attempts on it.
 */
export const API_OUTAGE = {
  ApiOutage:
    "Most Sender API calls fail (5xx, time-outs, refused connections): that API's letters wait, one real call tried every interval, until one succeeds.",
} as const;

/**
 * Operator alerts that end no intake: clamd (CLAMD_URL) has not answered for longer than
 * CLAMD_ALERT_AFTER_MS, so letters wait unscanned (scan/malware-scan.ts).
 */
export const SCANNER_OUTAGE = {
  ClamdUnavailable: 'clamd has not answered for longer than CLAMD_ALERT_AFTER_MS: letters wait to be scanned, none is passed on unscanned.',
} as const;

/**
 * Operator alerts that end no intake: a job came back more than five times without spending an
 * attempt (worker/job-returns.ts), so nothing bounds it but a person.
 */
export const JOB_RETURNS = {
  JobKeepsReturning:
    'A job came back more than 5 times without spending an attempt (Redis away or refusing writes, its replicas behind, an error recording a submitted letter): it waits longer each time, up to 5 min, until the cause is fixed.',
} as const;

/**
 * Operator alerts that end no intake: a worker's queue consumer took no job between two looks
 * while jobs were ready and it had room (worker/fetch-watch.ts), and was started again.
 */
export const FETCH_STOPPED = {
  WorkerNotFetching:
    'A worker took no job while jobs were ready and it had room (its BullMQ consumer stopped fetching, as after some Redis failovers): its consumer was started again.',
} as const;
