// The mailparser adapter: raw message → the few facts the intake decisions need.
// HTML-to-text and link rewriting are skipped in the parser; the body text is derived here, once,
// and only when the message has no text/plain part (HTML conversion is CPU-bound). Attachments
// are not decoded by mailparser (its stream decoder and checksum cost more than the rest).

import { convert } from 'html-to-text';
import { type AddressObject, simpleParser } from 'mailparser';
import { declaredType } from '../words/message-facts.js';
import { splitMessage } from './message-split.js';
import { decodePart } from './part-content.js';

/** Beyond this, HTML is truncated before conversion so one message cannot stall the worker. */
const MAX_HTML_TO_CONVERT = 1024 * 1024;

export interface MessageAttachment {
  readonly fileName: string | undefined;
  /** The part's declared media type, lower-cased, without parameters. */
  readonly contentType: string;
  readonly content: Buffer;
}

export interface ParsedMessage {
  readonly fromAddresses: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly attachments: readonly MessageAttachment[];
}

/**
 * Whether a parse failure is the parser refusing the message by its limits (mailsplit's EMAXLEN:
 * 1 MiB of header per MIME node, 1,000 child nodes): a rule of the message, not a defect.
 */
export function isParserLimit(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'EMAXLEN';
}

/**
 * The message read once: mailsplit cuts it, each attachment is decoded from its own encoded
 * bytes (part-content.ts), and mailparser reads the rest (text, subject, the attachments' types
 * and names) from the message without the attachments' bodies. Should mailparser list the
 * attachments differently than the split did, it reads the whole message instead.
 */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  const split = await splitMessage(raw);
  const rest = await readWithMailparser(split.withoutAttachments);
  const listed = rest.attachments;
  const agree =
    listed.length === split.attachments.length &&
    listed.every((a, i) => a.fileName === split.attachments[i]?.fileName && a.contentType === split.attachments[i]?.contentType);
  if (!agree) return readWithMailparser(raw);
  const contents = await Promise.all(split.attachments.map(decodePart));
  return {
    ...rest,
    attachments: listed.map((a, i) => ({ ...a, content: contents[i] ?? Buffer.alloc(0) })),
  };
}

/** mailparser's reading of a whole message (attachments as Buffers), without HTML-to-text in the parser. */
export async function readWithMailparser(raw: Buffer): Promise<ParsedMessage> {
  const mail = await simpleParser(raw, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
  });
  const text = mail.text?.trim()
    ? mail.text
    : typeof mail.html === 'string'
      ? convert(mail.html.slice(0, MAX_HTML_TO_CONVERT), { wordwrap: false })
      : '';
  return {
    fromAddresses: addresses(mail.from),
    subject: mail.subject ?? '',
    text: text.trim(),
    attachments: mail.attachments.map((a) => ({
      fileName: a.filename,
      contentType: declaredType(a.contentType),
      content: a.content,
    })),
  };
}

function addresses(from: AddressObject | AddressObject[] | undefined): string[] {
  const objects = from === undefined ? [] : Array.isArray(from) ? from : [from];
  return objects
    .flatMap((o) => o.value)
    .map((v) => (v.address ?? '').toLowerCase())
    .filter((a) => a !== '');
}
