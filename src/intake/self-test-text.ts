// A self-test report in words: what the mail to the sender says and the intake pages show.
// Every check, whether the From is a registered sender, the message's own rules and each PDF's
// verdict, and for a sender that lists its DKIM selectors, each signature's selector, listed or
// not. Pure.
import type { SelfTestReport } from './self-test-reports.js';

const CHECKS: readonly (readonly [string, string])[] = [
  ['from', 'From'],
  ['spf', 'SPF'],
  ['alignment', 'alignment'],
  ['dkim', 'DKIM'],
];

export function reportSummary(report: SelfTestReport): string {
  const pdfs = report.pdfs ?? [];
  const pdfsFailed = pdfs.filter((p) => !p.verdict.startsWith('pass') && !p.verdict.startsWith('not opened')).length;
  if (report.outcome === 'fail') return 'authentication failed';
  if (report.registered === false) return 'authentication passed; the From is not a registered sender';
  if (report.rules !== undefined && report.rules !== 'pass') return 'authentication passed; a letter would be refused by its rules';
  if (pdfsFailed > 0) return 'authentication passed; a PDF would be rejected';
  return report.state === 'checking' ? 'authentication passed; PDFs being checked' : 'ready: a letter like this one would be accepted';
}

export function reportLines(report: SelfTestReport): string[] {
  const pdfs = report.pdfs;
  return [
    `Self-test ${report.id}: ${reportSummary(report)}`,
    '',
    `Received ${new Date(report.at).toISOString()} from ${report.clientIp} (HELO ${report.helo}), envelope sender ${report.envelopeFrom === '' ? '<>' : report.envelopeFrom}`,
    `From: ${report.from === '' ? '(none)' : report.from}${report.outcome === 'pass' ? '' : ' (claimed, not authenticated)'}`,
    `Message-ID: ${report.messageId === '' ? '(none)' : report.messageId}`,
    `Subject: ${report.subject}`,
    `Reply: ${report.reply}`,
    '',
    'Authentication (every check must pass):',
    ...CHECKS.map(([key, name]) => `  ${name.padEnd(10)} ${report.checks[key] ?? 'not judged'}`),
    ...selectorLines(report),
    '',
    ...(report.registered === undefined
      ? []
      : [
          `Registered sender: ${report.registered ? 'yes, the From is a registered sender address' : 'no: register this From address before you go live'}`,
        ]),
    ...(report.rules === undefined ? [] : [`The message's own rules: ${report.rules}`]),
    ...(report.outcome === 'pass'
      ? [
          '',
          'PDFs (the checks a letter gets after 250):',
          ...(pdfs === undefined
            ? ['  being checked']
            : pdfs.length === 0
              ? ['  none attached']
              : pdfs.map((p) => `  ${p.fileName}: ${p.verdict}`)),
        ]
      : []),
    '',
    `Report: ${report.mailed ?? 'not mailed yet'}`,
  ];
}

/** Which signature's selector the sender lists: only a listed one makes the DKIM check pass. */
function selectorLines(report: SelfTestReport): string[] {
  const pinned = report.dkimSelectors;
  if (pinned === undefined) return [];
  return [
    '',
    `DKIM selectors the sender lists: ${pinned.listed.join(', ')}`,
    ...(pinned.signatures.length === 0
      ? ['  no DKIM signature found']
      : pinned.signatures.map(
          (s) => `  d=${s.domain} s=${s.selector} (${s.result}): ${s.listed ? 'listed, counts' : 'not listed, does not count'}`,
        )),
  ];
}
