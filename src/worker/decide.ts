// The worker's decision (docs/design.md §2.4 and §2.6): a parsed message and the sender directory in,
// a letter to submit or a rejection with its reason out. Pure.
import type { RejectionReason } from '../errors.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import type { ParsedMessage } from './parse-message.js';
import { selectPdfs, type PdfDocument } from './pdf-rules.js';

export interface LetterDraft {
  readonly title: string;
  readonly description: string;
  readonly genderTargeting: 'All';
  readonly parts: readonly { fileName: string; mimeType: 'application/pdf'; base64Data: string }[];
}

export type Decision =
  | {
      readonly kind: 'letter';
      readonly sender: Sender;
      readonly letter: LetterDraft;
      readonly pdfs: readonly PdfDocument[];
      readonly ignoredAttachments: readonly string[];
    }
  | { readonly kind: 'rejected'; readonly reasonCode: RejectionReason; readonly reason: string };

export interface DecideOptions {
  readonly directory: SenderDirectory;
  readonly maxPdfBytes: number;
}

export function decide(message: ParsedMessage, options: DecideOptions): Decision {
  const [from, ...others] = message.fromAddresses;
  const sender = from === undefined || others.length > 0 ? undefined : options.directory.byAddress(from);
  if (sender === undefined) {
    const who = message.fromAddresses.join(', ') || '(none)';
    return { kind: 'rejected', reasonCode: 'SenderNotRegistered', reason: `The From address ${who} is not a registered address of any sender.` };
  }
  const selection = selectPdfs(message.attachments, options.maxPdfBytes);
  if (!selection.ok) return { kind: 'rejected', reasonCode: selection.reasonCode, reason: selection.reason };
  const title = titleFrom(message.subject);
  if (title === '') {
    return { kind: 'rejected', reasonCode: 'MissingSubject', reason: 'The subject is empty; it becomes the letter title, so it is required.' };
  }
  return {
    kind: 'letter',
    sender,
    pdfs: selection.pdfs,
    ignoredAttachments: selection.ignored,
    letter: {
      title,
      description: message.text,
      genderTargeting: 'All',
      parts: selection.pdfs.map((p) => ({ fileName: p.fileName, mimeType: 'application/pdf', base64Data: p.content.toString('base64') })),
    },
  };
}

/**
 * The subject, trimmed, with runs of white space collapsed to one space. Control characters
 * (NUL, ESC, C1) count as white space: end users see the title, and a raw subject may carry them.
 */
export function titleFrom(subject: string): string {
  return subject.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}
