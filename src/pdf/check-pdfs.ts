// The worker's PDF step (after decide): each PDF read in a checker thread and judged. Either
// every PDF passes and its page count, version and producer go into the intake record, or the
// first that fails rejects the intake with its reason. A checker fault throws (the intake is
// retried, then fails replayable): our bug is never the sender's rejection.
import type { PdfRecord } from '../intake/record.js';
import type { Sender } from '../senders/directory.js';
import type { PdfChecker } from './checker-pool.js';
import { judgePdf, type PdfRejection } from './judge.js';
import type { PdfDocument } from './pdf-document.js';

export type PdfDetails = Pick<PdfRecord, 'pages' | 'version' | 'producer' | 'launchActionsChecked'>;

export type PdfCheckOutcome =
  | { readonly ok: true; readonly details: readonly PdfDetails[] }
  | { readonly ok: false; readonly reasonCode: PdfRejection; readonly reason: string };

/** `checker` undefined: PDF_CHECKS=off, nothing is opened. */
export async function checkPdfs(pdfs: readonly PdfDocument[], sender: Sender, checker: PdfChecker | undefined): Promise<PdfCheckOutcome> {
  if (checker === undefined) return { ok: true, details: pdfs.map(() => ({})) };
  const details: PdfDetails[] = [];
  for (const pdf of pdfs) {
    const facts = await checker.inspect(pdf.content);
    const verdict = judgePdf(facts, { allowForms: sender.allowPdfForms }, `"${pdf.fileName}"`);
    if (!verdict.ok) return verdict;
    if (facts.kind !== 'opened') continue;
    details.push({
      pages: facts.pages,
      version: facts.version,
      ...(facts.producer === undefined ? {} : { producer: facts.producer }),
      ...(facts.structureWalked ? {} : { launchActionsChecked: false }),
    });
  }
  return { ok: true, details };
}
