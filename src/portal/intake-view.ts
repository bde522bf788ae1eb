// What a sender reads about one of its intakes: the state in words, the reason and what to do,
// the timeline and the notices it was sent. Pure markup from the record; nothing internal (no
// error stacks, no raw-store keys, no worker tokens).

import { codeAndReason } from '../intake/reason-text.js';
import type { IntakeRecord, IntakeState } from '../intake/record.js';
import { NOTICE_KINDS } from '../words/notice-kind.js';
import { esc, isoTime } from './html.js';

const STATE_WORDS: Readonly<Record<IntakeState, string>> = {
  received: 'Received, being stored',
  queued: 'Waiting to be made into a letter',
  processing: 'Being made into a letter',
  submitted: 'Letter created',
  rejected: 'Refused: no letter was made',
  failed: 'Could not be completed yet: our operators are told and will retry it',
  simulated: 'Dry run: every check passed; no letter was sent',
};

export const stateWords = (state: IntakeState): string => STATE_WORDS[state];

export function channelWords(record: IntakeRecord): string {
  return record.channel === 'web' ? `uploaded on the portal by ${record.uploadedBy ?? 'a user'}` : `e-mail from ${record.from}`;
}

export function intakeDetail(record: IntakeRecord, letterStatus: string | undefined): string {
  const reason =
    record.state === 'rejected'
      ? `<tr><th scope="row">Reason</th><td><code class="reason-code">${esc(record.reasonCode)}</code> ${esc(codeAndReason(record.reasonCode, record.reason).replace(`${record.reasonCode ?? ''}: `, ''))}</td></tr>`
      : record.state === 'failed'
        ? `<tr><th scope="row">Reason</th><td>${esc(record.errorCode ?? 'an error on our side')}: nothing for you to do; the intake is kept and will be completed.</td></tr>`
        : record.state === 'simulated'
          ? `<tr><th scope="row">Dry run</th><td>would have sent "${esc(record.simulatedLetter?.title)}"; nothing was sent</td></tr>`
          : '';
  const letter =
    record.letterId === undefined
      ? ''
      : `<tr><th scope="row">Letter</th><td>${esc(record.letterId)} · status ${esc(letterStatus ?? record.letterStatus ?? 'PendingApproval')}</td></tr>`;
  const timeline = Object.entries(record.timeline)
    .sort(([, a], [, b]) => (a ?? 0) - (b ?? 0))
    .map(([state, at]) => `<li>${isoTime(at)} UTC: ${esc(state)}</li>`)
    .join('');
  const notices = NOTICE_KINDS.flatMap((kind) => {
    const entry = record.notices?.[kind];
    if (entry === undefined) return [];
    return [
      `<section class="notice"><h3>Notice "${esc(entry.subject ?? kind)}" (${esc(entry.state)}${entry.to === undefined ? '' : ` to ${esc(entry.to)}`})</h3>${entry.text === undefined ? '' : `<pre>${esc(entry.text)}</pre>`}</section>`,
    ];
  }).join('');
  const pdfs = (record.pdfs ?? [])
    .map((p) => `<li>${esc(p.fileName)} (${p.bytes} bytes${p.pages === undefined ? '' : `, ${p.pages} pages`})</li>`)
    .join('');
  return `<table class="record">
<tr><th scope="row">Intake</th><td>${esc(record.intakeId)}</td></tr>
<tr><th scope="row">State</th><td class="state">${esc(record.state)}: ${esc(stateWords(record.state))}</td></tr>
${reason}${letter}
<tr><th scope="row">Subject</th><td>${esc(record.subject)}</td></tr>
<tr><th scope="row">Message-ID</th><td>${esc(record.messageId)}</td></tr>
<tr><th scope="row">How</th><td>${esc(channelWords(record))}</td></tr>
<tr><th scope="row">Received (UTC)</th><td>${isoTime(record.receivedAt)}</td></tr>
</table>
${pdfs === '' ? '' : `<h2>PDFs</h2><ul>${pdfs}</ul>`}
<h2>Timeline</h2><ol class="timeline">${timeline}</ol>
<h2>Notices sent to you</h2>${notices === '' ? '<p>None.</p>' : notices}`;
}
