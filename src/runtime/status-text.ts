// `letter-intake status ID` for a person: the intake's state and what it came to first, then
// where it came from, its checks, its timeline and what the sender was told. Pure: a record in,
// lines of text out (`--json` prints the record itself).
import { codeAndReason } from '../intake/reason-text.js';
import { INTAKE_STATES, type IntakeRecord, type PdfRecord, type Timeline } from '../intake/record.js';
import { NOTICE_KINDS } from '../words/notice-kind.js';

/** 2026-11-25 14:11:33.971 (UTC, to the millisecond). */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const grouped = (n: number): string => n.toLocaleString('en');

function outcomeLines(record: IntakeRecord): string[] {
  switch (record.state) {
    case 'submitted':
      return [`letter    ${record.letterId ?? '(no id recorded)'}, ${record.letterStatus ?? 'no status shown'} when submitted`];
    case 'simulated':
      return [
        `dry run   every check passed; nothing was sent to the Sender API`,
        `would be  "${record.simulatedLetter?.title ?? ''}": ${record.simulatedLetter?.description ?? ''}`,
      ];
    case 'rejected':
      return [`reason    ${codeAndReason(record.reasonCode, record.reason)}`];
    case 'failed':
      return [
        `error     ${codeAndReason(record.errorCode, record.reason)}`,
        `next      fix the cause, then: letter-intake replay ${record.intakeId}`,
      ];
    default:
      return record.letterId === undefined ? [] : [`letter    ${record.letterId} (a draft, not submitted yet)`];
  }
}

function pdfLine(p: PdfRecord): string {
  const facts = [`${grouped(p.bytes)} bytes`];
  if (p.pages !== undefined) facts.push(`${p.pages} page${p.pages === 1 ? '' : 's'}`);
  if (p.version !== undefined) facts.push(`PDF ${p.version}`);
  if (p.producer !== undefined) facts.push(`made by ${p.producer}`);
  return `${p.fileName} (${facts.join(', ')})`;
}

function timelineLines(timeline: Timeline): string[] {
  const entries = INTAKE_STATES.flatMap((state) => {
    const at = timeline[state];
    return at === undefined ? [] : [{ state, at }];
  }).sort((a, b) => a.at - b.at);
  return entries.map(({ state, at }, i) => {
    const previous = entries[i - 1];
    const step = previous === undefined ? '' : `+${duration(at - previous.at)}`;
    return `  ${utcTime(at)}  ${state.padEnd(10)}  ${step}`.trimEnd();
  });
}

function noticeLines(record: IntakeRecord): string[] {
  const lines = NOTICE_KINDS.flatMap((kind) => {
    const entry = record.notices?.[kind];
    if (entry === undefined) return [];
    const facts = [entry.reason, entry.to === undefined ? undefined : `to ${entry.to}`].filter((f) => f !== undefined && f !== '');
    return [`  ${kind.padEnd(10)}  ${entry.state}${facts.length === 0 ? '' : `: ${facts.join(', ')}`}`];
  });
  return lines.length === 0 ? ['  none'] : lines;
}

function earlierRunLines(record: IntakeRecord): string[] {
  const runs = [...(record.earlierRuns ?? [])].reverse();
  if (runs.length === 0) return [];
  return [
    '',
    'earlier runs (each ended failed, then replayed; newest first)',
    ...runs.map((run) => {
      const span = [run.timeline.queued, run.timeline.failed].map((at) => (at === undefined ? '?' : utcTime(at))).join(' → ');
      const attempts = run.attempts === undefined ? '' : `, ${run.attempts} attempt${run.attempts === 1 ? '' : 's'}`;
      return `  ${span}${attempts}: ${codeAndReason(run.errorCode, run.reason)}`;
    }),
  ];
}

export function formatStatus(record: IntakeRecord): string {
  const pdfs = record.pdfs ?? [];
  const lines = [
    `intake ${record.intakeId}: ${record.erasedAt === undefined ? record.state : `${record.state}, erased`}`,
    ...(record.erasedAt === undefined
      ? []
      : [`  erased    ${new Date(record.erasedAt).toISOString()} by ${record.erasedBy ?? '?'}: ${record.erasedReason ?? ''}`]),
    ...outcomeLines(record).map((l) => `  ${l}`),
    `  from      ${record.from} (envelope ${record.envelopeFrom === '' ? '<>' : record.envelopeFrom}, client ${record.clientIp}, HELO ${record.helo})`,
    `  subject   ${record.subject}`,
    `  message   ${record.messageId === '' ? '(no Message-ID)' : record.messageId}, ${grouped(record.sizeBytes)} bytes`,
    ...(pdfs.length === 0 ? [] : [`  PDFs      ${pdfs.map(pdfLine).join('; ')}`]),
    ...((record.ignoredAttachments ?? []).length === 0 ? [] : [`  ignored   ${(record.ignoredAttachments ?? []).join(', ')}`]),
    `  attempts  ${record.attempts}`,
    '',
    'checks',
    ...Object.entries(record.auth).map(([check, result]) => `  ${check.padEnd(10)}  ${result}`),
    '',
    'timeline (UTC)',
    ...timelineLines(record.timeline),
    ...earlierRunLines(record),
    '',
    'notices to the sender',
    ...noticeLines(record),
  ];
  return `${lines.join('\n')}\n`;
}
