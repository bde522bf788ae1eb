// The admin page of messages refused in the SMTP session: by their own rules (with an
// authenticated From), or because they failed authentication (SPF, DKIM, alignment, the From
// header), whose From is only what the message claims. Never intakes, so no intake page; each
// row is the short record the listener kept. A filter shows one kind or one failed check. Pure;
// escaped.
import { AUTH_CHECK_NAMES } from '../intake/auth-refusals.js';
import type { RefusalCount } from '../intake/refusal-counts.js';
import type { ListedRefusal } from '../intake/refusal-records.js';
import { escapeHtml, isoTime, page } from './html.js';

export const REFUSED_PATH = '/admin/intakes/refused';

export type { ListedRefusal, RefusalKind } from '../intake/refusal-records.js';

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

const AUTH_CHECKS = new Set([...Object.values(AUTH_CHECK_NAMES), 'authentication']);

/** Does a count pass the filter? A count knows its check, and the authentication checks by name. */
export function countMatchesFilter(count: RefusalCount, filter: RefusalFilter): boolean {
  const checks = count.check.split(', ');
  const isAuth = count.check !== 'other' && checks.every((c) => AUTH_CHECKS.has(c));
  switch (filter) {
    case 'all':
      return true;
    case 'rules':
      return !isAuth;
    case 'authentication':
      return isAuth;
    default:
      return isAuth && checks.includes(filter);
  }
}

/** "14:02:05–14:03:40" within a day, whole times across days. */
function span(first: number, last: number): string {
  const a = isoTime(first);
  const b = isoTime(last);
  if (a.slice(0, 10) !== b.slice(0, 10)) return `${a} – ${b}`;
  return `${a.slice(0, 10)} ${a.slice(11, 19)}–${b.slice(11, 19)} UTC`;
}

function countsTable(counts: readonly RefusalCount[]): string {
  if (counts.length === 0) return '<p>No refusal counted.</p>';
  const rows = counts.map((c) => {
    const what =
      c.check === 'other'
        ? 'other (the day held its most distinct keys)'
        : countMatchesFilter(c, 'authentication')
          ? `failed ${c.check}`
          : c.check;
    const sample = c.sample.messageId === '' ? escapeHtml(c.sample.subject) : escapeHtml(c.sample.messageId);
    return `<tr>
<td class="num">${escapeHtml(c.count)}</td>
<td>${escapeHtml(what)}</td>
<td>${escapeHtml(c.fromDomain === '' ? '(none)' : c.fromDomain)}</td>
<td>${escapeHtml(c.network)}</td>
<td>${escapeHtml(c.reply)}</td>
<td>${escapeHtml(span(c.firstSeen, c.lastSeen))}</td>
<td>${sample}</td>
</tr>`;
  });
  return `<table class="refusal-counts">
<thead><tr><th>times</th><th>check</th><th>claimed From domain</th><th>client network</th><th>reply</th><th>first – last seen</th><th>e.g.</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
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

export function renderRefusalList(
  refusals: readonly ListedRefusal[],
  filter: RefusalFilter = 'all',
  counts: readonly RefusalCount[] | undefined = undefined,
): string {
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
    "<p>Samples: refused by a rule of the message (kept for RECORD_RETENTION_DAYS, 100 per client network an hour), or because it failed authentication (kept a week, 5 per client network a minute); past those, a network's latest refusal.</p>";
  const countsPart =
    counts === undefined
      ? ''
      : `<h2>Counts</h2>\n<p>Every refusal, counted per client network, check, claimed From domain and reply (kept for RECORD_RETENTION_DAYS), with one sample each.</p>\n${countsTable(counts)}\n<h2>Samples</h2>\n`;
  return page('Refused in the SMTP session', `${filterLinks(filter)}\n${countsPart}${note}\n${table}`);
}
