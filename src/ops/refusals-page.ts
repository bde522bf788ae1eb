// The admin page of messages refused in the SMTP session: by their own rules (with an
// authenticated From), or because they failed authentication (SPF, DKIM, alignment, the From
// header), whose From is only what the message claims. Never intakes, so no intake page; each
// row is the short record the listener kept. A filter shows one kind or one failed check. Pure;
// escaped.
import type { SessionRefusal } from '../intake/session-refusals.js';
import { escapeHtml, isoTime, page } from './html.js';

export const REFUSED_PATH = '/admin/intakes/refused';

export type RefusalKind = 'rule' | 'authentication';
export type ListedRefusal = SessionRefusal & { readonly kind: RefusalKind };

/** What the page shows: every refusal, one kind, or the authentication refusals of one check. */
export const REFUSAL_FILTERS = ['all', 'rules', 'authentication', 'SPF', 'DKIM', 'alignment', 'From'] as const;
export type RefusalFilter = (typeof REFUSAL_FILTERS)[number];

export function parseRefusalFilter(value: string | undefined): RefusalFilter | undefined {
  if (value === undefined || value === '') return 'all';
  return REFUSAL_FILTERS.find((f) => f === value);
}

export function matchesFilter(refusal: ListedRefusal, filter: RefusalFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'rules':
      return refusal.kind === 'rule';
    case 'authentication':
      return refusal.kind === 'authentication';
    default:
      return refusal.kind === 'authentication' && refusal.reasonCode.split(', ').includes(filter);
  }
}

function filterLinks(current: RefusalFilter): string {
  const links = REFUSAL_FILTERS.map((f) => {
    const label = f === 'all' ? 'all' : f === 'rules' || f === 'authentication' ? f : `failed ${f}`;
    const href = f === 'all' ? REFUSED_PATH : `${REFUSED_PATH}?check=${encodeURIComponent(f)}`;
    return f === current ? `<strong>${escapeHtml(label)}</strong>` : `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
  });
  return `<p class="filter">show: ${links.join(' · ')}</p>`;
}

function fromCell(r: ListedRefusal): string {
  if (r.kind === 'rule') return escapeHtml(r.from);
  // Anyone can write any From: a message that failed authentication only claims it.
  return `${escapeHtml(r.from === '' ? '(none)' : r.from)}<br><small>claimed From (not authenticated)</small>`;
}

export function renderRefusalList(refusals: readonly ListedRefusal[], filter: RefusalFilter = 'all'): string {
  const rows = refusals.map(
    (r) => `<tr>
<td>${escapeHtml(isoTime(r.at))}</td>
<td>${escapeHtml(r.kind === 'rule' ? r.reasonCode : `failed ${r.reasonCode}`)}</td>
<td>${fromCell(r)}</td>
<td>${escapeHtml(r.messageId)}</td>
<td>${escapeHtml(r.subject)}</td>
<td>${escapeHtml(`${r.clientIp} (HELO ${r.helo})`)}</td>
<td>${escapeHtml(r.reply)}</td>
</tr>`,
  );
  const table =
    refusals.length === 0
      ? '<p>No message was refused in the session.</p>'
      : `<table class="refused">
<thead><tr><th>at</th><th>reason</th><th>from</th><th>message id</th><th>subject</th><th>client</th><th>reply</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  const note =
    '<p>Refused by a rule of the message (kept for RECORD_RETENTION_DAYS), or because it failed authentication (kept a week, a few per client network a minute).</p>';
  return page('Refused in the SMTP session', `${filterLinks(filter)}\n${note}\n${table}`);
}
