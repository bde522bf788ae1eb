// The self-test reports on the admin pages: the newest first, and each report as it was mailed
// (or would have been). Pure; every stranger's text escaped.

import type { SelfTestReport } from '../intake/self-test-reports.js';
import { reportLines, reportSummary } from '../intake/self-test-text.js';
import { escapeHtml, isoTime, page } from './html.js';

export const SELF_TESTS_PATH = '/admin/self-tests';

export const selfTestHref = (id: string): string => `${SELF_TESTS_PATH}/${encodeURIComponent(id)}`;
const href = selfTestHref;

export function renderSelfTestList(reports: readonly SelfTestReport[]): string {
  const rows = reports.map(
    (r) => `<tr>
<td><a href="${escapeHtml(href(r.id))}">${escapeHtml(r.id)}</a></td>
<td>${escapeHtml(isoTime(r.at))}</td>
<td>${escapeHtml(r.outcome)}</td>
<td>${escapeHtml(r.from)}${r.outcome === 'pass' ? '' : '<br><small>claimed From (not authenticated)</small>'}</td>
<td>${escapeHtml(r.clientIp)}</td>
<td>${escapeHtml(reportSummary(r))}</td>
<td>${escapeHtml(r.mailed ?? '')}</td>
</tr>`,
  );
  const table =
    reports.length === 0
      ? '<p>No self-test yet: a sender sends one to the self-test address before going live.</p>'
      : `<table class="self-tests">
<thead><tr><th>self-test</th><th>at</th><th>outcome</th><th>from</th><th>client</th><th>summary</th><th>report</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
  return page(
    'Self-tests',
    `<p>Messages to the self-test address (kept a week): every check as for a letter, never a letter.</p>\n${table}`,
  );
}

export function renderSelfTestReport(report: SelfTestReport): string {
  return page(
    `Self-test ${report.id}`,
    `<p><a href="${SELF_TESTS_PATH}">all self-tests</a></p>\n<pre class="report">${escapeHtml(reportLines(report).join('\n'))}</pre>`,
  );
}
