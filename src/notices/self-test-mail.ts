// The self-test report as a mail to the (authenticated) From address: plain text, auto-replied
// (RFC 3834), sent through the notice relay with the null envelope sender. Pure.
import { randomUUID } from 'node:crypto';
import type { SelfTestReport } from '../intake/self-test-reports.js';
import { reportLines, reportSummary } from '../intake/self-test-text.js';

export function selfTestMail(report: SelfTestReport, from: string, now: number): Buffer {
  const domain = from.split('@').pop() ?? 'localhost';
  const subject = `Self-test report: ${reportSummary(report)}`.replace(/[^\x20-\x7e]/g, '?');
  const headers = [
    `From: letter-intake <${from}>`,
    `To: ${report.from}`,
    `Subject: ${subject}`,
    `Date: ${new Date(now).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    ...(report.messageId === '' ? [] : [`In-Reply-To: ${report.messageId}`]),
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${reportLines(report).join('\r\n')}\r\n`, 'utf8');
}
