// Which attachments are the letter's PDFs (docs/design.md §2.4). Pure.
import { createHash } from 'node:crypto';
import type { MessageAttachment } from './parse-message.js';

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

export interface PdfDocument {
  readonly fileName: string;
  readonly content: Buffer;
  readonly sha256: string;
}

export type PdfSelection =
  | { readonly ok: true; readonly pdfs: readonly PdfDocument[]; readonly ignored: readonly string[] }
  | { readonly ok: false; readonly reasonCode: 'NoPdfAttachment' | 'NotAPdf' | 'PdfTooLarge'; readonly reason: string };

/** A part that claims to be a PDF: typed application/pdf, or octet-stream named *.pdf. */
export function claimsToBePdf(a: MessageAttachment): boolean {
  if (a.contentType === 'application/pdf') return true;
  return a.contentType === 'application/octet-stream' && /\.pdf$/i.test(a.fileName ?? '');
}

export function selectPdfs(attachments: readonly MessageAttachment[], maxPdfBytes: number): PdfSelection {
  const claimed = attachments.filter(claimsToBePdf);
  const ignored = attachments.filter((a) => !claimsToBePdf(a)).map(describe);
  if (claimed.length === 0) {
    return { ok: false, reasonCode: 'NoPdfAttachment', reason: 'The message carries no PDF attachment (application/pdf, or application/octet-stream named .pdf).' };
  }
  const fake = claimed.find((a) => !a.content.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC));
  if (fake !== undefined) {
    return { ok: false, reasonCode: 'NotAPdf', reason: `The attachment ${describe(fake)} is not a PDF: its content does not start with %PDF-.` };
  }
  const big = claimed.find((a) => a.content.length > maxPdfBytes);
  if (big !== undefined) {
    return { ok: false, reasonCode: 'PdfTooLarge', reason: `The PDF ${describe(big)} is ${big.content.length} bytes; the limit is ${maxPdfBytes} bytes.` };
  }
  const pdfs = claimed.map((a, i) => ({
    fileName: safeFileName(a.fileName, i + 1),
    content: a.content,
    sha256: createHash('sha256').update(a.content).digest('hex'),
  }));
  return { ok: true, pdfs, ignored };
}

/**
 * A file name the API and end users can safely see: the last path segment, no control
 * characters, no path separators, at most 200 characters, ending in .pdf; invented when absent.
 */
export function safeFileName(name: string | undefined, index: number): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  if (cleaned === '' || /^\.*pdf$/i.test(cleaned)) return `letter-${index}.pdf`;
  return /\.pdf$/i.test(cleaned) ? cleaned : `${cleaned}.pdf`;
}

function describe(a: MessageAttachment): string {
  return `"${a.fileName ?? '(no name)'}" (${a.contentType})`;
}
