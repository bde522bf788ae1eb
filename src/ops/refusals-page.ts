// The admin page of messages refused in the SMTP session by their own rules: never intakes,
// so they have no intake page; each row is the short record the listener kept. Pure; escaped.
import type { SessionRefusal } from '../intake/session-refusals.js';
import { escapeHtml, isoTime, page } from './html.js';

export const REFUSED_PATH = '/admin/intakes/refused';

export function renderRefusalList(refusals: readonly SessionRefusal[]): string {
  const rows = refusals.map(
    (r) => `<tr>
<td>${escapeHtml(isoTime(r.at))}</td>
<td>${escapeHtml(r.reasonCode)}</td>
<td>${escapeHtml(r.from)}</td>
<td>${escapeHtml(r.messageId)}</td>
<td>${escapeHtml(r.subject)}</td>
<td>${escapeHtml(`${r.clientIp} (HELO ${r.helo})`)}</td>
<td>${escapeHtml(r.reply)}</td>
</tr>`,
  );
  const table =
    refusals.length === 0
      ? '<p>No message was refused in the session.</p>'
      : `<table>
<thead><tr><th>at</th><th>reason</th><th>from</th><th>message id</th><th>subject</th><th>client</th><th>reply</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  return page('Refused in the SMTP session', table);
}
