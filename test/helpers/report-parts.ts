// The parts of a multipart/report, each parsed with mailparser on its own: simpleParser folds a
// message/delivery-status part into the message's text, so a test could not tell the parts apart.
import { simpleParser } from 'mailparser';

export interface ReportPart {
  /** The part's content type, lower-case, without parameters. */
  readonly type: string;
  /** The decoded body (line ends as mailparser gives them). */
  readonly body: string;
}

export async function reportParts(raw: Buffer): Promise<ReportPart[]> {
  const text = raw.toString('latin1');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(text.slice(0, text.search(/\r\n\r\n/)))?.[1];
  if (boundary === undefined) throw new Error('not a multipart message');
  const sections = text.split(`\r\n--${boundary}`);
  // sections[0] is the header block and preamble; the last one starts with "--" (the close).
  const parts = sections
    .slice(1)
    .filter((s) => !s.startsWith('--'))
    .map((s) => Buffer.from(s.replace(/^\r\n/, ''), 'latin1'));
  return Promise.all(
    parts.map(async (part) => {
      const parsed = await simpleParser(part);
      const contentType = parsed.headers.get('content-type');
      const type =
        typeof contentType === 'object' && contentType !== null && 'value' in contentType && typeof contentType.value === 'string'
          ? contentType.value
          : 'text/plain';
      return { type: type.toLowerCase(), body: parsed.text ?? parsed.attachments[0]?.content.toString('utf8') ?? '' };
    }),
  );
}

/** The value of one field of a delivery-status body (RFC 3464 §2.1: "Name: value" lines). */
export function statusField(body: string, name: string): string | undefined {
  const line = body.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
