// On an intake's page, behind the admin login: the raw message (view it, download it) and each
// PDF opened inline, with the PDF checks' verdict beside it. Pure; escaped.
import type { IntakeRecord } from '../intake/record.js';
import { escapeHtml } from './html.js';
import { intakeHref } from './intake-page.js';

export const rawHref = (id: string, download = false) => `${intakeHref(id)}/raw${download ? '?download=1' : ''}`;
export const pdfHref = (id: string, n: number) => `${intakeHref(id)}/pdfs/${n}`;

function verdictOf(record: IntakeRecord, pages: number | undefined, version: string | undefined): string {
  if (record.state === 'rejected' && record.reasonCode?.startsWith('Pdf') === true)
    return `rejected: ${record.reasonCode}: ${record.reason ?? ''}`;
  if (pages !== undefined)
    return `passed the PDF checks (${pages} page${pages === 1 ? '' : 's'}${version === undefined ? '' : `, PDF ${version}`})`;
  return record.state === 'submitted' ? 'passed (PDF checks off)' : 'not checked yet';
}

export function rawMessageSection(record: IntakeRecord): string {
  if (record.rawKey === undefined) return '<p>The raw message is no longer kept (RAW_RETENTION_DAYS).</p>';
  const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  const pdfs = (record.pdfs ?? []).map(
    (p, i) => `<li>${link(pdfHref(record.intakeId, i + 1), p.fileName)}: ${escapeHtml(verdictOf(record, p.pages, p.version))}</li>`,
  );
  return `<h2>Message</h2>
<p>${link(rawHref(record.intakeId), 'view the raw message')} · ${link(rawHref(record.intakeId, true), 'download it')}</p>
${pdfs.length === 0 ? '' : `<ul class="pdfs">\n${pdfs.join('\n')}\n</ul>`}`;
}
