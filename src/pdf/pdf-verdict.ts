// One PDF's verdict in words, for a self-test report: the same inspection and rules as a
// letter's PDFs (check-pdfs.ts), but every PDF judged, not only up to the first that fails.
import type { PdfChecker } from './checker-pool.js';
import { judgePdf } from './judge.js';
import type { PdfDocument } from './pdf-document.js';

/** `checker` undefined: PDF_CHECKS=off, nothing is opened. */
export async function pdfVerdict(pdf: PdfDocument, allowForms: boolean, checker: PdfChecker | undefined): Promise<string> {
  if (checker === undefined) return 'not opened (PDF_CHECKS=off): type, name and first bytes only';
  const facts = await checker.inspect(pdf.content);
  const verdict = judgePdf(facts, { allowForms }, `"${pdf.fileName}"`);
  if (!verdict.ok) return `${verdict.reasonCode}: ${verdict.reason}`;
  if (facts.kind !== 'opened') return 'pass';
  return `pass: ${facts.pages} page${facts.pages === 1 ? '' : 's'}, PDF ${facts.version}${facts.producer === undefined ? '' : `, made by ${facts.producer}`}`;
}
