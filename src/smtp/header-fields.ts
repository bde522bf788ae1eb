// Reads the few header fields the intake record shows (Message-ID, Subject) from the raw message,
// without a full MIME parse. Only the header block is read, up to a bound.
import libmime from 'libmime';

export const MAX_HEADER_SCAN_BYTES = 1024 * 1024;

export interface HeaderFields {
  readonly messageId: string;
  readonly subject: string;
  /** The From field as written (the last one), decoded: what the message claims, not who sent it. */
  readonly claimedFrom: string;
}

export function readHeaderFields(raw: Buffer): HeaderFields {
  const scan = raw.subarray(0, MAX_HEADER_SCAN_BYTES).toString('latin1');
  const end = scan.search(/\r?\n\r?\n/);
  const block = end === -1 ? scan : scan.slice(0, end);
  // RFC 5322 §2.2.3: unfold continuation lines.
  const lines = block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  // The last instance: the one a DKIM verifier checks (RFC 6376 §5.4.2) and mailparser reads. A
  // field prepended above a signed message must not give it another Message-ID or Subject.
  const last = (name: string): string | undefined => {
    const prefix = `${name.toLowerCase()}:`;
    const line = lines.findLast((l) => l.toLowerCase().startsWith(prefix));
    return line?.slice(prefix.length).trim();
  };
  const messageId = /<[^<>\s]+>/.exec(last('message-id') ?? '')?.[0] ?? '';
  return { messageId, subject: decodeSubject(last('subject') ?? ''), claimedFrom: decodeSubject(last('from') ?? '') };
}

function decodeSubject(value: string): string {
  try {
    // Header bytes were read as latin1; raw UTF-8 subjects (RFC 6532) are re-read as UTF-8.
    return libmime.decodeWords(Buffer.from(value, 'latin1').toString('utf8'));
  } catch {
    return value;
  }
}
