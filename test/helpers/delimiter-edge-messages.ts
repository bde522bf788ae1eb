// Generated messages full of what a MIME splitter must tell apart from a delimiter line: body
// lines starting with "-", "--" or "\r--", delimiters whose boundary is a prefix of another
// (b, bX), delimiters of an ancestor in the middle of a part, long lines past the splitter's
// pending-line limit, bare LF and CRLF (mixed too), a last line without a line break, a
// closing delimiter that never comes. Seeded: the same seed gives the same messages.

export interface EdgeMessage {
  readonly name: string;
  readonly raw: Buffer;
  /**
   * Every header block ends (with an empty line) before the next delimiter line. mailsplit then
   * loses nothing; a delimiter in the middle of a header block drops that block.
   */
  readonly headersComplete: boolean;
}

const BOUNDARIES = ['b', 'bX', 'b-', 'b--', '=_edge'];
/** A delimiter line of any of BOUNDARIES (RFC 2046 §5.1.1; mailsplit also takes one leading CR). */
const DELIMITER = new RegExp(`^\\r?--(${BOUNDARIES.map((b) => b.replace(/[-=]/g, '\\$&')).join('|')})(--)?\\r?$`);
const LONG_LINE = 70 * 1024; // over mailsplit's 64 KiB pending-line limit

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function base64Line(random: Random): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return Array.from({ length: 76 }, () => pick(random, [...alphabet])).join('');
}

/** One body line (without its line break), often one that looks like a delimiter. */
function bodyLine(random: Random, boundaries: readonly string[]): string {
  const near = boundaries.length > 0 ? pick(random, boundaries) : 'b';
  if (random() < 0.03) return pick(random, [`---${'x'.repeat(LONG_LINE)}`, `--${near}${'y'.repeat(LONG_LINE)}`, 'z'.repeat(LONG_LINE)]);
  return pick(random, [
    () => base64Line(random),
    () => base64Line(random),
    () => 'plain text',
    () => '',
    () => '-',
    () => '--',
    () => '-single dash',
    () => `--${near}X`,
    () => `--${near}--x`,
    () => `--${near} `,
    () => ` --${near}`,
    () => `\r--${near}`, // a delimiter too: mailsplit skips one <CR> in front of it
    () => `--${near}`, // a real delimiter of an enclosing part, in the middle of this one
    () => 'bare\rcarriage return',
  ])();
}

/** Body lines; without `strays`, none of them is a delimiter line. */
function bodyLines(random: Random, boundaries: readonly string[], count: number, strays: boolean): string[] {
  return Array.from({ length: count }, () => {
    const line = bodyLine(random, boundaries);
    return strays || !DELIMITER.test(line) ? line : 'not a delimiter';
  });
}

/** A part's lines: headers, an empty line, the body (multipart parts nest up to `depth`). */
function partLines(random: Random, depth: number, boundaries: readonly string[], strays: boolean): string[] {
  const kind = pick(random, depth > 0 ? ['text', 'base64', 'multipart', 'multipart', 'rfc822'] : ['text', 'base64']);
  if (kind === 'multipart') {
    const boundary = pick(random, BOUNDARIES);
    const inner = [...boundaries, boundary];
    const children = Array.from({ length: 1 + Math.floor(random() * 3) }, () => [
      `--${boundary}`,
      ...partLines(random, depth - 1, inner, strays),
    ]).flat();
    const closing = random() < 0.8 ? [`--${boundary}--`] : []; // sometimes never closed
    return [
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      ...bodyLines(random, inner, Math.floor(random() * 3), strays), // preamble
      ...children,
      ...closing,
      ...bodyLines(random, inner, Math.floor(random() * 3), strays), // epilogue
    ];
  }
  if (kind === 'rfc822') {
    return [
      'Content-Type: message/rfc822',
      'Content-Disposition: inline',
      '',
      'Subject: inner',
      ...partLines(random, depth - 1, boundaries, strays),
    ];
  }
  const encoding = kind === 'base64' ? 'base64' : '7bit';
  // half the base64 parts are attachments, the parts the worker decodes from their own bytes
  const type =
    kind === 'base64' && random() < 0.5
      ? ['Content-Type: application/pdf; name="edge.pdf"', 'Content-Disposition: attachment; filename="edge.pdf"']
      : ['Content-Type: text/plain'];
  return [...type, `Content-Transfer-Encoding: ${encoding}`, '', ...bodyLines(random, boundaries, Math.floor(random() * 12), strays)];
}

/**
 * `count` messages from `random`, each with its own line ending (CRLF, LF or mixed); every other
 * one has delimiter lines in the middle of parts (`headersComplete` false).
 */
export function delimiterEdgeMessages(random: Random, count: number): EdgeMessage[] {
  return Array.from({ length: count }, (_, n) => {
    const strays = n % 2 === 1;
    const ending = pick(random, ['crlf', 'lf', 'mixed'] as const);
    const lines = ['From: edge@acme.example', `Subject: edge ${n}`, ...partLines(random, 3, [], strays)];
    const eol = () => (ending === 'crlf' ? '\r\n' : ending === 'lf' ? '\n' : pick(random, ['\r\n', '\n']));
    const text = lines.map((line, i) => (i === lines.length - 1 && random() < 0.3 ? line : line + eol())).join('');
    return { name: `edge-${n}-${ending}${strays ? '-strays' : ''}`, raw: Buffer.from(text, 'latin1'), headersComplete: !strays };
  });
}
