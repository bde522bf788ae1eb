// Server-rendered admin pages for intakes: a list by state, one intake with its timeline, and
// the answer to a replay. Pure functions from records to HTML; every value is escaped.
import type { ReplayResult } from '../intake/replay.js';
import { INTAKE_STATES, type IntakeRecord, type IntakeState, type PdfRecord } from '../intake/record.js';
import { escapeHtml, isoTime, page } from './html.js';

export const INTAKES_PATH = '/admin/intakes';

const intakeHref = (id: string): string => `${INTAKES_PATH}/${encodeURIComponent(id)}`;

/** What the intake came to, in one cell: the letter id, or the reason it ended otherwise. */
export function outcomeOf(record: IntakeRecord): string {
  if (record.state === 'submitted') return record.letterId ?? '';
  const code = record.reasonCode ?? record.errorCode;
  if (code === undefined) return record.reason ?? '';
  return record.reason === undefined ? code : `${code}: ${record.reason}`;
}

function replayForm(id: string): string {
  return `<form method="post" action="${escapeHtml(`${intakeHref(id)}/replay`)}"><button type="submit">replay</button></form>`;
}

export function renderIntakeList(states: readonly IntakeState[], records: readonly IntakeRecord[], canReplay: boolean): string {
  const rows = records.map((r) => `<tr>
<td><a href="${escapeHtml(intakeHref(r.intakeId))}">${escapeHtml(r.intakeId)}</a></td>
<td>${escapeHtml(r.state)}</td>
<td>${escapeHtml(isoTime(r.timeline[r.state]))}</td>
<td>${escapeHtml(r.from)}</td>
<td>${escapeHtml(r.subject)}</td>
<td>${escapeHtml(outcomeOf(r))}</td>
<td>${canReplay && r.state === 'failed' ? replayForm(r.intakeId) : ''}</td>
</tr>`);
  const table = records.length === 0
    ? '<p>No intakes in these states.</p>'
    : `<table>
<thead><tr><th>intake</th><th>state</th><th>since</th><th>from</th><th>subject</th><th>letter id / reason</th><th></th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  return page(`Intakes: ${states.join(', ')}`, table);
}

const FIELDS: ReadonlyArray<readonly [string, (r: IntakeRecord) => string | number | undefined]> = [
  ['intake', (r) => r.intakeId],
  ['state', (r) => r.state],
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
  ['authentication', (r) => Object.entries(r.auth).map(([k, v]) => `${k}: ${v}`).join('; ')],
  ['PDFs', (r) => r.pdfs?.map((p) => `${p.fileName} (${[`${p.bytes} bytes`, ...pdfDetails(p), `sha256 ${p.sha256}`].join(', ')})`).join('; ')],
  ['ignored attachments', (r) => r.ignoredAttachments?.join(', ')],
];

export function renderIntakeDetail(record: IntakeRecord, canReplay: boolean): string {
  const fields = FIELDS
    .map(([label, value]) => [label, value(record)] as const)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`);
  const timeline = INTAKE_STATES
    .flatMap((state) => {
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
<h2>Timeline</h2>
<table class="timeline">
<thead><tr><th>state</th><th>at</th></tr></thead>
<tbody>
${timeline.join('\n')}
</tbody>
</table>
${canReplay && record.state === 'failed' ? replayForm(record.intakeId) : ''}`;
  return page(`Intake ${record.intakeId}`, body);
}

export function renderReplayResult(intakeId: string, result: ReplayResult): string {
  const text = result.ok ? 'Queued again.' : result.reason;
  return page(`Replay of ${intakeId}`, `<p>${escapeHtml(text)}</p>
<p><a href="${escapeHtml(intakeHref(intakeId))}">back to the intake</a></p>`);
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
