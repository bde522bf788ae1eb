import { simpleParser } from 'mailparser';
import { describe, expect, it, vi } from 'vitest';
import type { IntakeRecord } from '../../src/intake/record.js';
import { composeNotice, noticeMessageId } from '../../src/notices/compose.js';
import { explain } from '../../src/notices/explain.js';
import { type ReportPart, reportParts, statusField } from '../helpers/report-parts.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const record = (over: Partial<IntakeRecord> = {}): IntakeRecord => ({
  intakeId: 'in0123456789abcdef01234567',
  state: 'rejected',
  receivedAt: Date.UTC(2026, 10, 22, 11, 59, 0),
  envelopeFrom: 'bounce@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '127.0.0.1',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Rechnung für Oktober',
  messageId: '<m1@acme.example>',
  sizeBytes: 100,
  auth: {},
  attempts: 3,
  reasonCode: 'ApiRejected',
  reason: 'The Sender API refused the letter: title\r\ntoo long',
  timeline: {},
  ...over,
});
const original =
  'Authentication-Results: mx.intake.example; dkim=pass\r\nFrom: Acme <letters@acme.example>\r\nSubject: Rechnung\r\nMessage-ID: <m1@acme.example>\r\n';

async function composed(r: IntakeRecord, kind: 'rejected' | 'failed' | 'submitted', now = NOW) {
  const notice = await composeNotice({
    record: r,
    kind,
    to: 'letters@acme.example',
    from: 'postmaster@mx.intake.example',
    reportingMta: 'mx.intake.example',
    originalHeaders: original,
    now,
  });
  return { notice, mail: await simpleParser(notice.raw), parts: await reportParts(notice.raw) };
}

const part = (parts: readonly ReportPart[], type: string): string => parts.find((p) => p.type === type)?.body ?? `(no ${type} part)`;

describe('a notice in the RFC 3464 shape', () => {
  it('is a multipart/report of delivery-status with the explanation, the status fields and the original headers', async () => {
    const { notice, mail, parts } = await composed(record(), 'rejected');
    expect(parts.map((p) => p.type)).toEqual(['text/plain', 'message/delivery-status', 'text/rfc822-headers']);
    expect(mail.headers.get('content-type')).toMatchObject({ value: 'multipart/report', params: { 'report-type': 'delivery-status' } });
    expect(mail.from?.value).toEqual([{ address: 'postmaster@mx.intake.example', name: '' }]);
    expect(mail.to).toMatchObject({ value: [{ address: 'letters@acme.example' }] });
    expect(mail.headers.get('auto-submitted')).toBe('auto-replied');
    expect(mail.messageId).toBe('<notice.rejected.in0123456789abcdef01234567@mx.intake.example>');
    expect(notice.messageId).toBe(mail.messageId);
    expect(mail.inReplyTo).toBe('<m1@acme.example>');
    expect(mail.subject).toBe('Letter not created: Rechnung für Oktober');
    expect(mail.date?.getTime()).toBe(NOW);

    const human = part(parts, 'text/plain');
    expect(human).toContain('Reason: ApiRejected: The Sender API refused the letter');
    expect(human).toContain('as intake in0123456789abcdef01234567');
    expect(human).toContain('What to do: Correct what the message names and send again.');

    const status = part(parts, 'message/delivery-status');
    const [perMessage = '', perRecipient = ''] = status.split(/\r?\n\r?\n/);
    expect(statusField(perMessage, 'Reporting-MTA')).toBe('dns; mx.intake.example');
    expect(statusField(perMessage, 'Arrival-Date')).toBe('Sun, 22 Nov 2026 11:59:00 +0000');
    expect(statusField(perRecipient, 'Final-Recipient')).toBe('rfc822; letters@intake.example');
    expect(statusField(perRecipient, 'Action')).toBe('failed');
    expect(statusField(perRecipient, 'Status')).toBe('5.0.0');
    expect(statusField(perRecipient, 'Diagnostic-Code')).toBe(
      'X-letter-intake; ApiRejected: The Sender API refused the letter: title too long',
    );
    expect(part(parts, 'text/rfc822-headers')).toBe(original);
  });

  it('says retries ran out with a persistent transient status, and an operator failure as such', async () => {
    const failed = record({ state: 'failed', reasonCode: undefined, errorCode: 'ServiceUnavailable', reason: 'down', attempts: 12 });
    const { mail, parts } = await composed(failed, 'failed');
    expect(statusField(part(parts, 'message/delivery-status'), 'Status')).toBe('4.4.7');
    expect(mail.text).toContain('after 12 attempt(s)');
    expect(mail.text).toContain('do not resend; you will hear when the letter is created');
    expect(explain({ ...failed, errorCode: 'IpAddressUnauthorized' }, 'failed').status).toBe('4.3.0');
  });

  it('tells the sender of a failure a fixed sentence and the intake id, never the internal reason', async () => {
    const failed = record({
      state: 'failed',
      reasonCode: undefined,
      errorCode: 'InsufficientAuthorization',
      reason: 'injected fault (403) at https://api.internal.example/api/v1/letters/draft',
      attempts: 1,
    });
    const { mail, parts } = await composed(failed, 'failed');
    const everything = `${mail.subject ?? ''}\n${parts.map((p) => p.body).join('\n')}`;
    expect(everything).not.toContain('InsufficientAuthorization');
    expect(everything).not.toContain('injected fault');
    expect(everything).not.toContain('api.internal.example');
    expect(mail.text).toContain('in0123456789abcdef01234567');
    expect(statusField(part(parts, 'message/delivery-status'), 'Diagnostic-Code')).toBe(
      'X-letter-intake; the letter gateway could not create the letter yet (intake in0123456789abcdef01234567)',
    );
  });

  it('confirms a created letter with its id and the status the API showed', async () => {
    const { mail, parts } = await composed(
      record({ state: 'submitted', letterId: 'L-42', letterStatus: 'PendingApproval', reasonCode: undefined, reason: undefined }),
      'submitted',
    );
    expect(mail.text).toContain('letter id L-42, status PendingApproval');
    const status = part(parts, 'message/delivery-status');
    expect(statusField(status, 'Action')).toBe('delivered');
    expect(statusField(status, 'Status')).toBe('2.0.0');
  });

  it('names the status the API showed, whatever it is called, and none when it showed none', () => {
    const shown = (letterStatus: string | undefined) =>
      explain(record({ state: 'submitted', letterId: 'L-7', letterStatus, reasonCode: undefined, reason: undefined }), 'submitted');
    expect(shown('Approved')).toMatchObject({
      text: expect.stringContaining('letter id L-7, status Approved.'),
      diagnostic: 'Submitted: letter L-7 Approved',
    });
    expect(shown('Queued').text).not.toContain('PendingApproval');
    expect(shown(undefined)).toMatchObject({
      text: expect.stringContaining('letter id L-7, submitted.'),
      diagnostic: 'Submitted: letter L-7',
    });
  });

  it('gives each rule its own status and advice', () => {
    expect(explain(record({ reasonCode: 'SenderNotRegistered' }), 'rejected')).toMatchObject({
      status: '5.7.1',
      text: expect.stringContaining('What to do: Send from the address registered for your organization.'),
    });
    expect(explain(record({ reasonCode: 'PdfTooLarge' }), 'rejected')).toMatchObject({
      status: '5.3.4',
      text: expect.stringContaining('smaller PDF'),
    });
    expect(explain(record({ reasonCode: 'MissingSubject' }), 'rejected')).toMatchObject({
      status: '5.6.0',
      text: expect.stringContaining('subject'),
    });
  });

  it('keeps the same Message-ID for every attempt at the same notice, an hour apart', async () => {
    // Attempts happen at different times: the clock moves between the two, as a retry's would.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(NOW);
      const first = await composed(record(), 'failed', NOW);
      vi.setSystemTime(NOW + 3600_000);
      const retry = await composed(record(), 'failed', NOW + 3600_000);
      expect(first.mail.messageId).toBe('<notice.failed.in0123456789abcdef01234567@mx.intake.example>');
      expect(retry.mail.messageId).toBe(first.mail.messageId);
      expect(retry.notice.messageId).toBe(first.notice.messageId);
    } finally {
      vi.useRealTimers();
    }
    expect(noticeMessageId('inX', 'failed', 'mx.example')).not.toBe(noticeMessageId('inX', 'rejected', 'mx.example'));
  });
});
