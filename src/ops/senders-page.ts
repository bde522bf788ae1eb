// The admin page of senders: each sender's own settings (SENDERS_FILE) and, for one with limits,
// its use of each now (the sliding hour's messages and bytes, its intakes not yet ended). Pure;
// escaped.
import type { SenderUse } from '../intake/sender-limits.js';
import type { SenderLimits } from '../senders/tenant-settings.js';
import { escapeHtml, page } from './html.js';

export const SENDERS_PATH = '/admin/intakes/senders';

export interface SenderView {
  readonly senderId: string;
  readonly companyNameEn: string;
  readonly addresses: readonly string[];
  /** The sender's own settings in words (settings-text.ts). */
  readonly settings: string;
  readonly limits: SenderLimits | undefined;
  /** Absent for a sender without limits (nothing is counted). */
  readonly use: SenderUse | undefined;
}

function useCell(used: number, limit: number | undefined): string {
  if (limit === undefined) return `${used}`;
  const share = Math.round((used / limit) * 100);
  return `${used} of ${limit} (${share}%)`;
}

function useCells(view: SenderView): string {
  const { use, limits } = view;
  if (use === undefined || limits === undefined) return '<td colspan="3">no limits: not counted</td>';
  return [useCell(use.messages, limits.messagesPerHour), useCell(use.bytes, limits.bytesPerHour), useCell(use.open, limits.queuedIntakes)]
    .map((c) => `<td>${escapeHtml(c)}</td>`)
    .join('');
}

export function renderSenders(views: readonly SenderView[]): string {
  const rows = views.map(
    (v) => `<tr>
<td>${escapeHtml(v.companyNameEn)}<br><small>${escapeHtml(v.senderId)}</small></td>
<td>${escapeHtml(v.addresses.join(', '))}</td>
<td>${escapeHtml(v.settings)}</td>
${useCells(v)}
</tr>`,
  );
  const table =
    views.length === 0
      ? '<p>The sender directory lists no sender.</p>'
      : `<table class="senders">
<thead><tr><th>sender</th><th>From addresses</th><th>own settings</th><th>messages, last hour</th><th>bytes, last hour</th><th>not yet ended</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  const note = "<p>Each sender's own settings from SENDERS_FILE, and its use of its limits now (a sliding hour).</p>";
  return page('Senders', `${note}\n${table}`);
}
