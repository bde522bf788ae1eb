// The original message's header block: the notice decision reads Auto-Submitted and Precedence
// from it, and the notice returns it as its text/rfc822-headers part (RFC 3462 §3).
import { type RawMessageRef, rawMessageBytes } from '../raw-store/raw-message.js';
import type { RawStore } from '../raw-store/raw-store.js';

/** Header blocks past this are cut (at a line end): a notice returns headers, not a message. */
export const MAX_RETURNED_HEADER_BYTES = 64 * 1024;

/** The record's stored message's header block (the gateway's own trace fields first), or undefined when the raw message is gone. */
export async function readOriginalHeaders(rawStore: RawStore, record: RawMessageRef): Promise<string | undefined> {
  // The one place notices read raw mail: a different raw store changes only this line.
  const raw = await rawMessageBytes(rawStore, record);
  return raw === undefined ? undefined : headerBlock(raw);
}

/** Everything before the first empty line, bounded, with CRLF line ends. */
export function headerBlock(raw: Buffer): string {
  const text = raw.subarray(0, MAX_RETURNED_HEADER_BYTES).toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text.slice(0, text.lastIndexOf('\n') + 1) : text.slice(0, end);
  return block.replace(/\r?\n/g, '\r\n').replace(/(\r\n)?$/, '\r\n');
}

/** Every value of a header field (unfolded, trimmed), in order. Names compare case-insensitively. */
export function headerValues(block: string, name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return block
    .replace(/\r?\n[ \t]+/g, ' ') // RFC 5322 §2.2.3 unfolding
    .split(/\r?\n/)
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}
