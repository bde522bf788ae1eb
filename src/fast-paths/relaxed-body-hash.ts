// Replaces: mailauth 7.1's RelaxedHash (lib/dkim/body/relaxed.js) update(), by subclassing.
// Proved by: test/unit/dkim-body-hash-equivalence.test.ts (its RelaxedHash on the same chunks).
//
// DKIM "relaxed" body canonicalization (RFC 6376 §3.4.4) at memory speed for the common case.
//
// mailauth's RelaxedHash looks at every byte in a JavaScript loop to decide which lines need
// fixing. Most lines of real mail (base64 and quoted-printable parts, plain prose) need none: a
// line ending in CRLF with no HTAB, no run of spaces and no space before its CRLF is its own
// canonical form. This subclass finds such lines with Buffer.indexOf (native, whole chunks) and
// hashes runs of them as they are; every other line, and a line begun in an earlier chunk,
// goes through mailauth's own update(), so its rules decide every line that is not trivially
// canonical. The held-back trailing empty lines, l= and the counters stay mailauth's
// (_pushBodyHash), so the hash and the lengths are the same; the equivalence test proves it.
// Fed by the verifier, whose input has every bare LF made CRLF already (line-breaks.ts), a run
// of whole lines with no HTAB, no two spaces and no space before CRLF is canonical as a whole:
// three native searches decide it instead of one per line.
import { RelaxedHash } from 'mailauth/lib/dkim/body/relaxed.js';

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const HTAB = 0x09;
const TWO_SPACES = Buffer.from('  ');
const SPACE_CRLF = Buffer.from(' \r\n');

export interface FastRelaxedHashOptions {
  /** Every LF of the input follows a CR (the verifier's input, after line-breaks.ts). */
  readonly lineEndsAreCrlf?: boolean;
}

export class FastRelaxedHash extends RelaxedHash {
  private readonly lineEndsAreCrlf: boolean;

  constructor(hashAlgo: string, maxBodyLength: number | '', options: FastRelaxedHashOptions = {}) {
    super(hashAlgo, maxBodyLength);
    this.lineEndsAreCrlf = options.lineEndsAreCrlf === true;
  }

  override update(chunk: Buffer | null, final?: boolean): void {
    if (final === true || chunk === null || chunk.length === 0) {
      super.update(chunk, final);
      return;
    }
    let start = 0;
    if (this.remainder !== false && this.remainder.length > 0) {
      // the line begun in the previous chunk is mailauth's to finish (it keeps the start)
      const firstLf = chunk.indexOf(LF);
      if (firstLf < 0) {
        super.update(chunk);
        return;
      }
      super.update(chunk.subarray(0, firstLf + 1));
      start = firstLf + 1;
    }
    const lastLf = chunk.lastIndexOf(LF);
    if (lastLf >= start) this.hashWholeLines(chunk, start, lastLf + 1);
    const tail = Math.max(start, lastLf + 1);
    if (tail < chunk.length) super.update(chunk.subarray(tail)); // waits in mailauth's remainder
  }

  /** `chunk[from, to)` is whole lines (it ends in LF), and `from` starts a line. */
  private hashWholeLines(chunk: Buffer, from: number, to: number): void {
    let nextTab = indexAtOrAfter(chunk, HTAB, from);
    let nextSpaces = indexAtOrAfter(chunk, TWO_SPACES, from);
    if (this.lineEndsAreCrlf && nextTab >= to && nextSpaces >= to && indexAtOrAfter(chunk, SPACE_CRLF, from) >= to) {
      this.hashRun(chunk.subarray(from, to), true);
      return;
    }
    let runStart = from;
    let runIsCanonical = true;
    let lineStart = from;
    while (lineStart < to) {
      const lf = chunk.indexOf(LF, lineStart);
      if (nextTab < lineStart) nextTab = indexAtOrAfter(chunk, HTAB, lineStart);
      if (nextSpaces < lineStart) nextSpaces = indexAtOrAfter(chunk, TWO_SPACES, lineStart);
      // mailauth's test, line by line: CRLF ending, no space before it, no HTAB, no two spaces
      const canonical = chunk[lf - 1] === CR && chunk[lf - 2] !== SPACE && nextTab > lf && nextSpaces > lf;
      if (canonical !== runIsCanonical) {
        this.hashRun(chunk.subarray(runStart, lineStart), runIsCanonical);
        runStart = lineStart;
        runIsCanonical = canonical;
      }
      lineStart = lf + 1;
    }
    this.hashRun(chunk.subarray(runStart, to), runIsCanonical);
  }

  private hashRun(lines: Buffer, canonical: boolean): void {
    if (lines.length === 0) return;
    if (!canonical) {
      super.update(lines);
      return;
    }
    this.byteLength += lines.length;
    this._pushBodyHash(lines);
  }
}

/** Position of the next `what` at or after `from`, or Infinity when there is none. */
function indexAtOrAfter(chunk: Buffer, what: number | Buffer, from: number): number {
  const at = chunk.indexOf(what, from);
  return at < 0 ? Infinity : at;
}
