// DKIM's relaxed body canonicalization (RFC 6376 §3.4.4), streaming, on Node's public APIs only:
// the content digest's view of the body, whatever signatures the message carries.
//
// Per line: every run of WSP (SP, HTAB) becomes one SP, WSP at the end of the line goes, and the
// line ends in CRLF. An LF ends a line; a CR right before it belongs to the line end, any other
// CR is content (as DKIM verifiers read bare LFs). Empty lines at the end of the body are
// dropped, and a CRLF is added only to a non-empty body: a body empty after this stays empty
// (unlike "simple", §3.4.3, whose empty body is one CRLF). Lines already canonical (CRLF, no HTAB, no two spaces, no space
// before the CRLF) are passed on as runs of the input, found with native searches.
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const HTAB = 0x09;
const TWO_SPACES = Buffer.from('  ');
/** CRLFs written for held empty lines, a slice of this at a time. */
const CRLFS = Buffer.from('\r\n'.repeat(32 * 1024), 'latin1');

export class RelaxedBody {
  /** Empty lines not yet written: they are written only once content follows them. */
  private heldEmptyLines = 0;
  /** The bytes of a line begun in an earlier chunk. */
  private partial: Buffer[] = [];
  private ended = false;

  /** `out` receives the canonical body, in order; the buffers it gets may be views of the input. */
  constructor(private readonly out: (canonical: Buffer) => void) {}

  update(chunk: Buffer): void {
    if (this.ended) throw new Error('the body has ended');
    let start = 0;
    if (this.partial.length > 0) {
      const lf = chunk.indexOf(LF);
      if (lf < 0) {
        this.partial.push(Buffer.from(chunk));
        return;
      }
      this.partial.push(chunk.subarray(0, lf));
      this.line(Buffer.concat(this.partial), true);
      this.partial = [];
      start = lf + 1;
    }
    const lastLf = chunk.lastIndexOf(LF);
    if (lastLf >= start) this.lines(chunk, start, lastLf + 1);
    const tail = Math.max(start, lastLf + 1);
    if (tail < chunk.length) this.partial.push(Buffer.from(chunk.subarray(tail))); // a copy: the chunk is not kept
  }

  /** The last line (a CRLF is added when it had none); empty lines at the end are dropped. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.partial.length > 0) this.line(Buffer.concat(this.partial), false);
    this.partial = [];
  }

  /** `chunk[from, to)` is whole lines (it ends in LF) and `from` starts a line. */
  private lines(chunk: Buffer, from: number, to: number): void {
    let nextTab = indexAtOrAfter(chunk, HTAB, from);
    let nextSpaces = indexAtOrAfter(chunk, TWO_SPACES, from);
    let runStart = from; // canonical lines from here on are not yet passed on
    for (let at = from; at < to; ) {
      const lf = chunk.indexOf(LF, at);
      if (nextTab < at) nextTab = indexAtOrAfter(chunk, HTAB, at);
      if (nextSpaces < at) nextSpaces = indexAtOrAfter(chunk, TWO_SPACES, at);
      const canonical = lf - at >= 2 && chunk[lf - 1] === CR && chunk[lf - 2] !== SP && nextTab > lf && nextSpaces > lf;
      if (!canonical) {
        this.run(chunk.subarray(runStart, at));
        if (lf === at || (lf - at === 1 && chunk[at] === CR)) this.heldEmptyLines += 1;
        else this.line(chunk.subarray(at, lf), true);
        runStart = lf + 1;
      }
      at = lf + 1;
    }
    this.run(chunk.subarray(runStart, to));
  }

  /** One line without its LF (`ended`: it had one, and a CR before it is the line end's), canonicalized. */
  private line(bytes: Buffer, ended: boolean): void {
    const end = ended && bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    const text = bytes.toString('latin1', 0, end).replace(/[ \t]+/g, ' ');
    const canonical = text.endsWith(' ') ? text.slice(0, -1) : text;
    if (canonical === '') {
      this.heldEmptyLines += 1;
      return;
    }
    this.run(Buffer.from(`${canonical}\r\n`, 'latin1'));
  }

  /** Canonical, non-empty lines: the held empty lines go first. */
  private run(lines: Buffer): void {
    if (lines.length === 0) return;
    while (this.heldEmptyLines > 0) {
      const n = Math.min(this.heldEmptyLines, CRLFS.length / 2);
      this.out(CRLFS.subarray(0, 2 * n));
      this.heldEmptyLines -= n;
    }
    this.out(lines);
  }
}

/** Position of the next `what` at or after `from`, or Infinity when there is none. */
function indexAtOrAfter(chunk: Buffer, what: number | Buffer, from: number): number {
  const at = chunk.indexOf(what, from);
  return at < 0 ? Infinity : at;
}
