// The letter's PDFs (docs/design.md §2.4), once the message rules (policy/message-rules.ts) passed. Pure.
import { createHash } from 'node:crypto';
import type { PdfDocument } from '../pdf/pdf-document.js';
import { claimsToBePdf, describePart } from '../policy/message-rules.js';
import type { MessageAttachment } from './parse-message.js';

export interface PdfSelection {
  readonly pdfs: readonly PdfDocument[];
  /** The other attachments (logos, signatures), described for the record. */
  readonly ignored: readonly string[];
}

/** The attachments the rules judged to be the letter's PDFs, with safe names and hashes. */
export function selectPdfs(attachments: readonly MessageAttachment[]): PdfSelection {
  const pdfs = attachments.filter(claimsToBePdf).map((a, i) => ({
    fileName: safeFileName(a.fileName, i + 1),
    content: a.content,
    sha256: createHash('sha256').update(a.content).digest('hex'),
  }));
  const ignored = attachments.filter((a) => !claimsToBePdf(a)).map(describePart);
  return { pdfs, ignored };
}

/**
 * A file name the API and end users can safely see: the last path segment, no control
 * characters, no path separators, at most 200 characters, ending in .pdf; invented when absent.
 */
export function safeFileName(name: string | undefined, index: number): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are removed from file names
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  if (cleaned === '' || /^\.*pdf$/i.test(cleaned)) return `letter-${index}.pdf`;
  return /\.pdf$/i.test(cleaned) ? cleaned : `${cleaned}.pdf`;
}
