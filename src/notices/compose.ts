// A notice as an RFC 3464 delivery status notification: multipart/report (RFC 6522) with the
// human-readable explanation, the message/delivery-status fields, and the original headers as
// text/rfc822-headers. Built with nodemailer's MIME tree, since its composer has no DSN shape.
import MimeNode from 'nodemailer/lib/mime-node';
import type { IntakeRecord } from '../intake/record.js';
import type { NoticeKind } from '../words/notice-kind.js';
import { explain } from './explain.js';

export interface ComposeInput {
  readonly record: IntakeRecord;
  readonly kind: NoticeKind;
  /** The authenticated From address of the intake. */
  readonly to: string;
  /** NOTICE_FROM. */
  readonly from: string;
  /** The gateway's host name: the Reporting-MTA, and the Message-ID's domain. */
  readonly reportingMta: string;
  readonly originalHeaders: string;
  readonly now: number;
}

export interface ComposedNotice {
  readonly messageId: string;
  readonly subject: string;
  readonly text: string;
  readonly raw: Buffer;
}

/** The same on every attempt, so a resent notice can be recognised as the same message. */
export function noticeMessageId(intakeId: string, kind: NoticeKind, host: string): string {
  return `<notice.${kind}.${intakeId}@${host}>`;
}

export async function composeNotice(input: ComposeInput): Promise<ComposedNotice> {
  const { record, kind } = input;
  const said = explain(record, kind);
  const messageId = noticeMessageId(record.intakeId, kind, input.reportingMta);
  const root = new MimeNode('multipart/report; report-type=delivery-status', { hostname: input.reportingMta, newline: 'win' });
  root.setHeader({
    From: input.from,
    To: input.to,
    Subject: said.subject,
    Date: new Date(input.now),
    'Message-ID': messageId,
    // RFC 3834 §5: an automatic response; no auto-responder answers it.
    'Auto-Submitted': 'auto-replied',
    'X-Letter-Intake-Id': record.intakeId,
    ...(record.messageId === '' ? {} : { 'In-Reply-To': record.messageId, References: record.messageId }),
  });
  root.createChild('text/plain; charset=utf-8').setContent(said.text);
  root.createChild('message/delivery-status').setContent(deliveryStatus(input, said.action, said.status, said.diagnostic));
  root.createChild('text/rfc822-headers').setContent(input.originalHeaders);
  return { messageId, subject: said.subject, text: said.text, raw: await root.build() };
}

/** RFC 3464 §2.2 per-message fields, an empty line, §2.3 per-recipient fields. */
function deliveryStatus(input: ComposeInput, action: string, status: string, diagnostic: string): string {
  const { record } = input;
  const date = (ms: number): string => new Date(ms).toUTCString().replace('GMT', '+0000');
  const perMessage = [
    `Reporting-MTA: dns; ${input.reportingMta}`,
    `X-Letter-Intake-Id: ${record.intakeId}`,
    `Arrival-Date: ${date(record.receivedAt)}`,
  ];
  const perRecipient = [
    `Final-Recipient: rfc822; ${record.envelopeTo[0] ?? 'unknown'}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Diagnostic-Code: X-letter-intake; ${oneAsciiLine(diagnostic)}`,
    `Last-Attempt-Date: ${date(input.now)}`,
  ];
  return `${perMessage.join('\r\n')}\r\n\r\n${perRecipient.join('\r\n')}\r\n`;
}

/** DSN fields are US-ASCII lines (RFC 3464 §2.1.1). */
function oneAsciiLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim()
    .slice(0, 900);
}
