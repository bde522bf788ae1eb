// What a notice says, in words and in RFC 3464 terms, for each outcome: pure text from the record.
import type { NoticeKind } from '../intake/notice-fields.js';
import type { IntakeRecord } from '../intake/record.js';

export interface Explanation {
  readonly subject: string;
  /** The human-readable part. */
  readonly text: string;
  /** RFC 3464 §2.3.3 Action. */
  readonly action: 'failed' | 'delivered';
  /** RFC 3463 enhanced status code. */
  readonly status: string;
  /** The reason code and sentence, for the Diagnostic-Code field. */
  readonly diagnostic: string;
}

// RFC 3463: 5.7.1 not authorized, 5.3.4 too big, 5.6.0 other media error (content the letter
// cannot be made from); 5.0.0 other (the Sender API's own refusal).
const REJECTION_STATUS: Readonly<Record<string, string>> = {
  SenderNotRegistered: '5.7.1',
  PdfTooLarge: '5.3.4',
  ApiRejected: '5.0.0',
};

const REJECTION_ADVICE: Readonly<Record<string, string>> = {
  SenderNotRegistered: 'Send the letter from your registered address, or ask us to register this address for you.',
  NoPdfAttachment: 'Attach the letter as a PDF file and send the message again.',
  NotAPdf: 'Attach a real PDF file (it must start with %PDF-) and send the message again.',
  PdfDamaged: 'The PDF cannot be read: export it again and send the message again.',
  PdfPasswordProtected: 'Remove the password from the PDF and send the message again.',
  PdfActiveContent: 'Remove scripts, actions and embedded files from the PDF and send the message again.',
  PdfTooLarge: 'Send a smaller PDF (reduce image resolution or split the letter).',
  MissingSubject: 'Give the message a subject (it becomes the letter title) and send it again.',
  UnparseableMessage: 'Send the message again from an ordinary mail program.',
  ApiRejected: 'Correct the letter as the reason says and send it again.',
};

// Operator failures: the gateway's own credentials or the Sender API's allow-list (docs/design.md §3).
const OPERATOR_CODES = new Set(['InvalidCredentials', 'InsufficientAuthorization', 'IpAddressUnauthorized']);

export function explain(record: IntakeRecord, kind: NoticeKind): Explanation {
  const about = `Your message "${record.subject}" ${record.messageId === '' ? '' : `(${record.messageId}) `}` +
    `was received by the letter gateway on ${new Date(record.receivedAt).toUTCString()} as intake ${record.intakeId}.`;
  if (kind === 'submitted') {
    const letter = record.letterId ?? '(unknown)';
    return {
      subject: `Letter created: ${record.subject}`,
      text: `${about}\n\nThe letter has been created: letter id ${letter}, status PendingApproval.\n` +
        `Nothing more to do; quote the intake id or the letter id if you ask us about it.\n`,
      action: 'delivered',
      status: '2.0.0',
      diagnostic: `Submitted: letter ${letter} PendingApproval`,
    };
  }
  if (kind === 'rejected') {
    const code = record.reasonCode ?? 'Rejected';
    // The record's sentence names its rule already (errors.ts: "Code: what it says; what to do").
    const sentence = (record.reason ?? '').replace(new RegExp(`^${code}: `), '');
    return {
      subject: `Letter not created: ${record.subject}`,
      text: `${about}\n\nIt could not become a letter.\n\nReason: ${code}: ${sentence}\n\n` +
        `What to do: ${REJECTION_ADVICE[code] ?? 'Correct the message and send it again.'}\n` +
        `Quote the intake id ${record.intakeId} if you ask us about it.\n`,
      action: 'failed',
      status: REJECTION_STATUS[code] ?? '5.6.0',
      diagnostic: `${code}: ${sentence}`,
    };
  }
  const code = record.errorCode ?? 'Failed';
  const sentence = record.reason ?? '';
  const operator = OPERATOR_CODES.has(code);
  return {
    subject: `Letter not created: ${record.subject}`,
    text: `${about}\n\nThe letter could not be created${operator ? '' : ` after ${record.attempts} attempt(s)`}.\n\n` +
      `Reason: ${code}: ${sentence}\n\n` +
      `What to do: ${operator ? 'our operators have been alerted; ' : ''}send the same message again later: ` +
      `a message whose intake failed is tried again when it arrives again. ` +
      `Quote the intake id ${record.intakeId} if you ask us about it.\n`,
    action: 'failed',
    // RFC 3463 4.4.7: delivery time expired (retries ran out); 4.3.0: mail system (an operator must act).
    status: operator ? '4.3.0' : '4.4.7',
    diagnostic: `${code}: ${sentence}`,
  };
}
