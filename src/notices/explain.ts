// What a notice says, in words and in RFC 3464 terms, for each outcome: pure text from the record.
import { MESSAGE_RULES, type MessageRule, REJECTION_REASONS, type RejectionReason } from '../errors.js';
import type { IntakeRecord } from '../intake/record.js';
import type { NoticeKind } from '../words/notice-kind.js';

export interface Explanation {
  readonly subject: string;
  /** The human-readable part. */
  readonly text: string;
  /** RFC 3464 §2.3.3 Action. */
  readonly action: 'failed' | 'delayed' | 'delivered';
  /** RFC 3463 enhanced status code. */
  readonly status: string;
  /** The reason code and sentence, for the Diagnostic-Code field. */
  readonly diagnostic: string;
}

/** RFC 3463 status of a rejection: the catalog's reply for a rule of the message; 5.6.0 (media) for
 * a PDF check; 5.0.0 (other) for the Sender API's own refusal. */
const isMessageRule = (code: string): code is MessageRule => Object.hasOwn(MESSAGE_RULES, code);
const isRejectionReason = (code: string): code is RejectionReason => Object.hasOwn(REJECTION_REASONS, code);

function rejectionStatus(code: string): string {
  if (isMessageRule(code)) return MESSAGE_RULES[code].smtp.enhanced;
  return code === 'ApiRejected' ? '5.0.0' : '5.6.0';
}

/** What to do, from the one catalog (errors.ts), as a sentence. */
function advice(code: string): string {
  const row = isRejectionReason(code) ? REJECTION_REASONS[code] : undefined;
  if (row === undefined) return 'Correct the message and send it again.';
  const todo = row.todo.replaceAll('{maxPdf}', 'the size limit');
  return `${todo.charAt(0).toUpperCase()}${todo.slice(1)}.`;
}

// Operator failures: the gateway's own credentials or the Sender API's allow-list (docs/design.md §9).
const OPERATOR_CODES = new Set(['InvalidCredentials', 'InsufficientAuthorization', 'IpAddressUnauthorized']);

export function explain(record: IntakeRecord, kind: NoticeKind): Explanation {
  const about =
    `Your message "${record.subject}" ${record.messageId === '' ? '' : `(${record.messageId}) `}` +
    `was received by the letter gateway on ${new Date(record.receivedAt).toUTCString()} as intake ${record.intakeId}.`;
  if (kind === 'submitted') {
    const letter = record.letterId ?? '(unknown)';
    // The status the Sender API showed for the letter when it ended; some APIs show none.
    const shown = record.letterStatus;
    return {
      subject: `Letter created: ${record.subject}`,
      text:
        `${about}\n\nThe letter has been created: letter id ${letter}, ${shown === undefined ? 'submitted' : `status ${shown}`}.\n` +
        `Nothing more to do; quote the intake id or the letter id if you ask us about it.\n`,
      action: 'delivered',
      status: '2.0.0',
      diagnostic: `Submitted: letter ${letter}${shown === undefined ? '' : ` ${shown}`}`,
    };
  }
  if (kind === 'simulated') {
    // A dry run (the sender's dryRun): what would have been sent, and that nothing was.
    const title = record.simulatedLetter?.title ?? record.subject;
    const pdfs = (record.simulatedLetter?.pdfs ?? []).map((p) => `  ${p.fileName}  sha256 ${p.sha256}`).join('\n');
    return {
      subject: `Dry run, no letter sent: ${record.subject}`,
      text:
        `${about}\n\nThis sender is set to a dry run: every check passed, and nothing was sent to the Sender API.\n` +
        `The letter would have been:\n  title: ${title}\n  description: ${record.simulatedLetter?.description ?? ''}\n` +
        `PDFs:\n${pdfs === '' ? '  (none)' : pdfs}\n`,
      action: 'delivered',
      status: '2.0.0',
      diagnostic: 'Simulated: dry run, no letter was sent',
    };
  }
  if (kind === 'rejected') {
    const code = record.reasonCode ?? 'Rejected';
    // The record's sentence names its rule already (errors.ts: "Code: what it says; what to do").
    const sentence = (record.reason ?? '').replace(new RegExp(`^${code}: `), '');
    return {
      subject: `Letter not created: ${record.subject}`,
      text:
        `${about}\n\nIt could not become a letter.\n\nReason: ${code}: ${sentence}\n\n` +
        `What to do: ${advice(code)}\n` +
        `Quote the intake id ${record.intakeId} if you ask us about it.\n`,
      action: 'failed',
      status: rejectionStatus(code),
      diagnostic: `${code}: ${sentence}`,
    };
  }
  // A failure is ours (the Sender API, our credentials, a store): its code and reason stay in the
  // log and on the intake page; the sender gets a fixed sentence and the intake id to quote. Every
  // failure alerts the operators (LetterIntakeIntakesFailed), whose replay creates the letter
  // from the message already held; a resend would be another message and a second letter, so
  // the notice says not to, and the replay's success is always confirmed (policy.ts).
  const operator = OPERATOR_CODES.has(record.errorCode ?? '');
  const sentence = `the letter gateway could not create the letter yet (intake ${record.intakeId})`;
  return {
    subject: `Letter not created yet: ${record.subject}`,
    text:
      `${about}\n\nThe letter could not be created yet${operator ? '' : ` after ${record.attempts} attempt(s)`}.\n\n` +
      `Reason: ${sentence}, because of a fault on our side, not in your message.\n\n` +
      'What to do: do not resend; you will hear when the letter is created. ' +
      'Our operators have been alerted and will create it from the message we hold; ' +
      'a message sent again would become a second letter. ' +
      `Quote the intake id ${record.intakeId} if you ask us about it.\n`,
    // RFC 3464 §2.3.3: the message is kept and will be acted on, not given up.
    action: 'delayed',
    // RFC 3463 4.4.7: delivery time expired (retries ran out); 4.3.0: mail system (an operator must act).
    status: operator ? '4.3.0' : '4.4.7',
    diagnostic: sentence,
  };
}
