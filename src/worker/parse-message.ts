// The mailparser adapter: raw message → the few facts the intake decisions need.
// HTML-to-text and link rewriting are skipped in the parser; the body text is derived here, once,
// and only when the message has no text/plain part (HTML conversion is CPU-bound).
import { simpleParser, type AddressObject } from 'mailparser';
import { convert } from 'html-to-text';
import { declaredType } from '../policy/message-facts.js';

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

export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
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
  return objects.flatMap((o) => o.value).map((v) => (v.address ?? '').toLowerCase()).filter((a) => a !== '');
}
