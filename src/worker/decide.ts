// The worker's decision (docs/design.md §2.4 and §2.6): a parsed message and the sender directory in, a
// letter to submit or a rejection with its reason out. Pure. The rules are the listener's
// (policy/message-rules.ts), applied again: the directory can change after acceptance.
import { type RejectionReason, ruleSentence } from '../errors.js';
import { Base64Data } from '../net/base64-data.js';
import type { PdfDocument } from '../pdf/pdf-document.js';
import { type ApiLimits, judgeMessage, titleFrom } from '../policy/message-rules.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import { FIRST_BYTES, type MessageFacts } from '../words/message-facts.js';
import type { ParsedMessage } from './parse-message.js';
import { selectPdfs } from './pdf-rules.js';

export { titleFrom } from '../policy/message-rules.js';

export interface LetterDraft {
  readonly title: string;
  readonly description: string;
  readonly genderTargeting: 'All';
  /** The PDFs' bytes, sent as base64 when the request is written (fast-paths/json-text.ts). */
  readonly parts: readonly { fileName: string; mimeType: 'application/pdf'; base64Data: Base64Data }[];
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
  /** The real API's stated limits (API_TITLE_MAX_CHARS, API_MAX_PARTS), as the listener applies them. */
  readonly apiLimits?: ApiLimits | undefined;
}

/** The facts the rules judge, from mailparser's result (the listener's walk makes the same). */
export function factsOf(message: ParsedMessage): MessageFacts {
  const [from, ...others] = message.fromAddresses;
  return {
    from: from === undefined || others.length > 0 ? '' : from,
    subject: message.subject,
    parts: message.attachments.map((a) => ({
      contentType: a.contentType,
      fileName: a.fileName,
      firstBytes: a.content.subarray(0, FIRST_BYTES),
      decodedBytes: a.content.length,
    })),
  };
}

export function decide(message: ParsedMessage, options: DecideOptions): Decision {
  const facts = factsOf(message);
  const sender = facts.from === '' ? undefined : options.directory.byAddress(facts.from);
  const verdict = judgeMessage(facts, {
    isRegistered: () => sender !== undefined,
    maxPdfBytes: options.maxPdfBytes,
    apiLimits: options.apiLimits,
  });
  if (!verdict.ok) {
    return { kind: 'rejected', reasonCode: verdict.reasonCode, reason: ruleSentence(verdict.reasonCode, options, verdict.detail) };
  }
  if (sender === undefined) throw new Error('the rules passed a message without a registered sender');
  const selection = selectPdfs(message.attachments);
  return {
    kind: 'letter',
    sender,
    pdfs: selection.pdfs,
    ignoredAttachments: selection.ignored,
    letter: {
      title: titleFrom(message.subject),
      description: message.text,
      genderTargeting: 'All',
      parts: selection.pdfs.map((p) => ({ fileName: p.fileName, mimeType: 'application/pdf', base64Data: new Base64Data(p.content) })),
    },
  };
}
