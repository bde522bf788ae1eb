// Server-rendered admin pages for intakes: one intake with its timeline, the letter in the
// Sender API's terms and the notices sent to the sender, and the answer to a replay (the list is
// intake-list-page.ts). Pure functions from records to HTML; every value is escaped.

import { codeAndReason } from '../intake/reason-text.js';
import { INTAKE_STATES, type IntakeRecord, type PdfRecord } from '../intake/record.js';
import type { ReplayResult } from '../intake/replay.js';
import { NOTICE_KINDS } from '../words/notice-kind.js';
import { escapeHtml, isoTime, page } from './html.js';

export const INTAKES_PATH = '/admin/intakes';

export const intakeHref = (id: string): string => `${INTAKES_PATH}/${encodeURIComponent(id)}`;

/** What the intake came to, in one cell: the letter id, or the reason it ended otherwise. */
export function outcomeOf(record: IntakeRecord): string {
  if (record.state === 'submitted') return record.letterId ?? '';
  if (record.state === 'simulated') return 'dry run: no letter sent';
  return codeAndReason(record.reasonCode ?? record.errorCode, record.reason);
}

export function replayForm(id: string): string {
  return `<form method="post" action="${escapeHtml(`${intakeHref(id)}/replay`)}"><button type="submit">replay</button></form>`;
}

const FIELDS: ReadonlyArray<readonly [string, (r: IntakeRecord) => string | number | undefined]> = [
  ['intake', (r) => r.intakeId],
  ['state', (r) => (r.erasedAt === undefined ? r.state : `${r.state}, erased`)],
  ['erased', (r) => (r.erasedAt === undefined ? undefined : `${isoTime(r.erasedAt)} by ${r.erasedBy ?? '?'}: ${r.erasedReason ?? ''}`)],
  ['letter id', (r) => r.letterId],
  ['reason code', (r) => r.reasonCode],
  ['reason', (r) => r.reason],
  ['error code', (r) => r.errorCode],
  ['trace id', (r) => r.traceId],
  ['attempts', (r) => r.attempts],
  ['from', (r) => r.from],
  ['envelope from', (r) => r.envelopeFrom],
  ['envelope to', (r) => r.envelopeTo.join(', ')],
  ['subject', (r) => r.subject],
  ['message id', (r) => r.messageId],
  ['size (bytes)', (r) => r.sizeBytes],
  ['client', (r) => `${r.clientIp} (HELO ${r.helo})`],
  ['sender id', (r) => r.senderId],
  [
    'authentication',
    (r) =>
      Object.entries(r.auth)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; '),
  ],
  [
    'PDFs',
    (r) => r.pdfs?.map((p) => `${p.fileName} (${[`${p.bytes} bytes`, ...pdfDetails(p), `sha256 ${p.sha256}`].join(', ')})`).join('; '),
  ],
  ['ignored attachments', (r) => r.ignoredAttachments?.join(', ')],
  // Drafts the Sender API holds that will never be submitted (a worker lost the intake meanwhile).
  [
    'stray drafts',
    (r) =>
      r.strayDrafts?.map((d) => d.letterId ?? `unknown id (draft requested ${new Date(d.requestedAt ?? d.at).toISOString()})`).join('; '),
  ],
  ['held by', (r) => (r.state === 'processing' ? r.owner : undefined)],
];

/** The letter as the Sender API knows it: its id and the status it had when the gateway submitted it. */
function letterSection(record: IntakeRecord): string {
  if (record.state === 'simulated') return simulatedSection(record);
  if (record.letterId === undefined) return '<h2>Letter</h2>\n<p>No letter was created for this intake.</p>';
  // A letter id without `submitted` is a draft the exactly-once checkpoint keeps for the next attempt.
  const status =
    record.state === 'submitted'
      ? `${record.letterStatus ?? 'submitted'} (when submitted; approval may have moved it on)`
      : `${record.draftStatus ?? 'a draft'} (not submitted yet)`;
  return `<h2>Letter</h2>
<table class="letter">
<tbody>
<tr><th>id</th><td>${escapeHtml(record.letterId)}</td></tr>
<tr><th>status</th><td>${escapeHtml(status)}</td></tr>
<tr><th>in the Sender API</th><td>${escapeHtml(`GET /api/v1/letters/${record.letterId}`)}</td></tr>
</tbody>
</table>`;
}

/** What the sender was told after 250: each notice's state and why, and its text. */
function noticesSection(record: IntakeRecord): string {
  const notices = NOTICE_KINDS.flatMap((kind) => {
    const entry = record.notices?.[kind];
    return entry === undefined ? [] : [{ kind, entry }];
  });
  if (notices.length === 0) return '';
  const blocks = notices.map(({ kind, entry }) => {
    const facts = [
      `${kind} notice: ${entry.state}`,
      isoTime(entry.at),
      entry.reason,
      entry.to === undefined ? undefined : `to ${entry.to}`,
      entry.messageId,
    ].filter((f): f is string => f !== undefined && f !== '');
    const text = entry.text === undefined ? '' : `\n<pre>${escapeHtml(`Subject: ${entry.subject ?? ''}\n\n${entry.text}`)}</pre>`;
    return `<p>${facts.map(escapeHtml).join(' · ')}</p>${text}`;
  });
  return `<h2>Notices to the sender</h2>\n${blocks.join('\n')}`;
}

/** The runs a replay ended (kept by the record, oldest first), newest first. */
function earlierRunsSection(record: IntakeRecord): string {
  const runs = [...(record.earlierRuns ?? [])].reverse();
  if (runs.length === 0) return '';
  const rows = runs.map(
    (run) =>
      `<tr><td>${escapeHtml(isoTime(run.timeline.queued))}</td><td>${escapeHtml(isoTime(run.timeline.failed))}</td><td class="num">${escapeHtml(run.attempts)}</td><td>${escapeHtml(codeAndReason(run.errorCode, run.reason))}</td></tr>`,
  );
  return `<h2>Earlier runs (each ended failed, then replayed)</h2>
<table class="earlier-runs">
<thead><tr><th>queued</th><th>failed</th><th>attempts</th><th>error</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

/** `message`: the raw message and PDF links (raw-message-section.ts), when the raw store is at hand. */
export function renderIntakeDetail(record: IntakeRecord, canReplay: boolean, message = ''): string {
  const fields = FIELDS.map(([label, value]) => [label, value(record)] as const)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`);
  const timeline = INTAKE_STATES.flatMap((state) => {
    const at = record.timeline[state];
    return at === undefined ? [] : [{ state, at }];
  })
    .sort((a, b) => a.at - b.at)
    .map(({ state, at }) => `<tr><td>${escapeHtml(state)}</td><td>${escapeHtml(isoTime(at))}</td></tr>`);
  const body = `<table class="record">
<tbody>
${fields.join('\n')}
</tbody>
</table>
${message}
<h2>Timeline</h2>
<table class="timeline">
<thead><tr><th>state</th><th>at</th></tr></thead>
<tbody>
${timeline.join('\n')}
</tbody>
</table>
${earlierRunsSection(record)}
${letterSection(record)}
${noticesSection(record)}
${canReplay && record.state === 'failed' ? replayForm(record.intakeId) : ''}`;
  return page(`Intake ${record.intakeId}`, body);
}

export function renderReplayResult(intakeId: string, result: ReplayResult): string {
  const text = result.ok ? 'Queued again.' : result.reason;
  return page(
    `Replay of ${intakeId}`,
    `<p>${escapeHtml(text)}</p>
<p><a href="${escapeHtml(intakeHref(intakeId))}">back to the intake</a></p>`,
  );
}

export function renderNotFound(intakeId: string): string {
  return page('Not found', `<p>No intake ${escapeHtml(intakeId)}.</p>`);
}

/** What the PDF checks recorded: pages, version, producer (nothing with PDF_CHECKS=off). */
function pdfDetails(p: PdfRecord): string[] {
  return [
    ...(p.pages === undefined ? [] : [`${p.pages} page${p.pages === 1 ? '' : 's'}`]),
    ...(p.version === undefined ? [] : [`PDF ${p.version}`]),
    ...(p.producer === undefined ? [] : [`made by ${p.producer}`]),
    ...(p.launchActionsChecked === false ? ['Launch actions not checked (encrypted object streams)'] : []),
  ];
}

/** A dry run's end: what would have been sent (the PDFs and their digests are in their own section). */
function simulatedSection(record: IntakeRecord): string {
  return `<h2>Letter (dry run)</h2>
<p>The sender is set to a dry run: every check passed and nothing was sent to the Sender API.</p>
<table class="letter">
<tbody>
<tr><th>title</th><td>${escapeHtml(record.simulatedLetter?.title ?? '')}</td></tr>
<tr><th>description</th><td>${escapeHtml(record.simulatedLetter?.description ?? '')}</td></tr>
</tbody>
</table>`;
}
