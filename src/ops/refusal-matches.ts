// The intake search's second half: the messages refused in the SMTP session that carry the
// searched Message-ID or From (they never became intakes), and, when refusals were counted but
// not sampled, how many: those keep no Message-ID, so the search cannot name them. Pure; escaped.
import type { RefusalFinding } from '../intake/refusal-records.js';
import { escapeHtml, isoTime } from './html.js';
import { REFUSED_PATH } from './refusals-page.js';

export function refusalMatches(finding: RefusalFinding | undefined, q: string): string {
  if (finding === undefined) return '';
  const rows = finding.samples.map(
    (r) => `<tr>
<td>${escapeHtml(isoTime(r.at))}</td>
<td>refused in the session</td>
<td>${escapeHtml(r.from)}</td>
<td>${escapeHtml(r.messageId)}</td>
<td>${escapeHtml(r.subject)}</td>
<td>${escapeHtml(r.reply)}</td>
</tr>`,
  );
  const table =
    rows.length === 0
      ? `<p>No sampled refusal matches ${escapeHtml(q)}.</p>`
      : `<table class="refused-matches">
<thead><tr><th>at</th><th>state</th><th>from</th><th>message id</th><th>subject</th><th>reply</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  const scope = finding.fromDomain === undefined ? '' : ` with a From in ${finding.fromDomain}`;
  const unsampled =
    finding.notSampled === 0
      ? ''
      : `<p class="unsampled">${escapeHtml(finding.notSampled)} of ${escapeHtml(finding.counted)} refusals${escapeHtml(scope)} were counted but not sampled: their Message-ID and subject were not kept, so a search cannot find them. See the <a href="${REFUSED_PATH}">counts</a>.</p>`;
  return `<h2>Refused in the SMTP session</h2>\n${table}\n${unsampled}`;
}
