// The message's own rules (docs/design.md §2.4), pure: registered sender, PDF attachments, subject.
// The listener applies them at the end of DATA to the facts of its streaming walk, the worker
// again to the facts of its parse (the directory can change in between).
import type { MessageRule } from '../errors.js';
import type { MessageFacts, PartFacts } from '../words/message-facts.js';

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

export interface RuleContext {
  readonly isRegistered: (address: string) => boolean;
  readonly maxPdfBytes: number;
  /** The real Sender API's own limits, when an operator stated them (API_TITLE_MAX_CHARS, API_MAX_PARTS). */
  readonly apiLimits?: ApiLimits | undefined;
}

export interface ApiLimits {
  readonly titleMaxChars: number | undefined;
  readonly maxParts: number | undefined;
}

export type MessageVerdict =
  | { readonly ok: true /** Indexes into `facts.parts` of the letter's PDFs, in order. */; readonly pdfParts: readonly number[] }
  | {
      readonly ok: false;
      readonly reasonCode: Exclude<MessageRule, 'UnparseableMessage'> /** Names the part or address. */;
      readonly detail: string;
    };

/** A part that claims to be a PDF: typed application/pdf, or octet-stream named *.pdf. */
export function claimsToBePdf(part: Pick<PartFacts, 'contentType' | 'fileName'>): boolean {
  if (part.contentType === 'application/pdf') return true;
  return part.contentType === 'application/octet-stream' && /\.pdf$/i.test(part.fileName ?? '');
}

/** The rules in their order: the first that fails is the answer. */
export function judgeMessage(facts: MessageFacts, ctx: RuleContext): MessageVerdict {
  if (facts.from === '' || !ctx.isRegistered(facts.from)) {
    return { ok: false, reasonCode: 'SenderNotRegistered', detail: `From ${facts.from || '(none)'}` };
  }
  const pdfParts = facts.parts.flatMap((part, index) => (claimsToBePdf(part) ? [index] : []));
  const claimed = facts.parts.filter(claimsToBePdf);
  if (claimed.length === 0) return { ok: false, reasonCode: 'NoPdfAttachment', detail: `${facts.parts.length} other attachment(s)` };
  const fake = claimed.find((p) => !p.firstBytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC));
  if (fake !== undefined) return { ok: false, reasonCode: 'NotAPdf', detail: describePart(fake) };
  const big = claimed.find((p) => p.decodedBytes > ctx.maxPdfBytes);
  if (big !== undefined) return { ok: false, reasonCode: 'PdfTooLarge', detail: `${describePart(big)} is ${big.decodedBytes} bytes` };
  const maxParts = ctx.apiLimits?.maxParts;
  if (maxParts !== undefined && claimed.length > maxParts) {
    return { ok: false, reasonCode: 'TooManyPdfs', detail: `${claimed.length} PDFs, at most ${maxParts}` };
  }
  const title = titleFrom(facts.subject);
  if (title === '') return { ok: false, reasonCode: 'MissingSubject', detail: 'no subject, or only white space' };
  const maxTitle = ctx.apiLimits?.titleMaxChars;
  const titleChars = [...title].length; // characters, not UTF-16 units
  if (maxTitle !== undefined && titleChars > maxTitle) {
    return { ok: false, reasonCode: 'TitleTooLong', detail: `${titleChars} characters, at most ${maxTitle}` };
  }
  return { ok: true, pdfParts };
}

/**
 * The subject, trimmed, with runs of white space collapsed to one space. Control characters
 * (NUL, ESC, C1) count as white space: end users see the title, and a raw subject may carry them.
 */
export function titleFrom(subject: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters count as white space in a title
  return subject.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

export function describePart(part: Pick<PartFacts, 'contentType' | 'fileName'>): string {
  return `"${part.fileName ?? '(no name)'}" (${part.contentType})`;
}
