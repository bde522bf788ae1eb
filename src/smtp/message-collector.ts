// The DATA bytes on their way through: passed on to authentication, written to the spool, the
// header block kept for the record, and three caps watched (message size, line length, the
// listener's memory budget). Once a cap is passed, or the spool failed, the collector keeps
// nothing and passes nothing on, but always keeps draining, so the client always gets its reply.
import { Transform, type TransformCallback } from 'node:stream';
import type { RawSpool } from '../intake/raw-spool.js';
import type { Reservation } from './memory-budget.js';

/**
 * RFC 5321 §4.5.3.1.6 allows 1000 octets per line; far longer lines are tolerated, up to this.
 * Past it the message is refused: mailauth's relaxed body canonicalization copies an unfinished
 * line again with every chunk, so one 14 MiB line stalls the event loop for seconds.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** The header block is kept up to this size (Message-ID, Subject, the message's identity). */
const MAX_HEAD_BYTES = 1024 * 1024;
const LF = 0x0a;
/** How many copies of a header block a message in flight holds (see heldWith). */
export const HEAD_COPIES = 5;

/** What a message in flight holds from its parts (see heldWith); minimumShareBytes takes each at its largest. */
export function heldBytes(parts: { head: number; line: number; buffered: number; chunk: number }): number {
  return HEAD_COPIES * parts.head + parts.line + parts.buffered + parts.chunk;
}

export class MessageCollector extends Transform {
  bytes = 0;
  lineTooLong = false;
  spoolError: unknown = undefined;
  /** The listener's memory budget had no room for what this message holds. */
  memoryExceeded = false;
  /** The first bytes of the message, through the end of its header block (bounded). */
  private headChunks: Buffer[] = [];
  private headBytes = 0;
  private headDone = false;
  private headTail = '';
  /** Bytes since the last LF. */
  private lineBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly spool: RawSpool,
    private readonly memory: Reservation,
  ) {
    super();
  }

  get overCap(): boolean {
    return this.bytes > this.maxBytes;
  }

  /** The header block (or as much of the message's start as was kept). */
  get head(): Buffer {
    return Buffer.concat(this.headChunks);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.lineTooLong ||= this.overLongLine(chunk);
    if (this.overCap || this.lineTooLong || this.spoolError !== undefined || this.memoryExceeded) {
      done();
      return;
    }
    this.memoryExceeded = !this.memory.resize(this.heldWith(chunk));
    if (this.memoryExceeded) {
      done();
      return;
    }
    this.keepHead(chunk);
    const written = this.spool.write(chunk);
    if (written === undefined) {
      done(null, chunk);
      return;
    }
    written.then(
      () => done(null, chunk),
      (err: unknown) => {
        this.spoolError = err; // reported after DATA as 451; the stream keeps draining
        done();
      },
    );
  }

  /**
   * What this message holds once `chunk` is in: the header block five times (ours, mailauth's
   * parser and DKIM verifier, the MIME walk's, which mailsplit keeps whole until the block ends,
   * and the string copies they make while reading it), the unfinished line mailauth
   * canonicalizes, the raw store's buffered bytes, the chunk. The abuse suite measures the live
   * memory this bounds (test/faults/hostile-relay-and-abuse.test.ts).
   */
  private heldWith(chunk: Buffer): number {
    const head = this.headDone ? this.headBytes : this.headBytes + chunk.length;
    return heldBytes({ head, line: this.lineBytes, buffered: this.spool.buffered, chunk: chunk.length });
  }

  private keepHead(chunk: Buffer): void {
    if (this.headDone) return;
    this.headChunks.push(chunk);
    this.headBytes += chunk.length;
    const text = this.headTail + chunk.toString('latin1');
    this.headDone = this.headBytes >= MAX_HEAD_BYTES || /\n\r?\n/.test(text); // the empty line ends the header block
    this.headTail = text.slice(-3);
  }

  private overLongLine(chunk: Buffer): boolean {
    const first = chunk.indexOf(LF);
    if (first === -1) {
      this.lineBytes += chunk.length;
      return this.lineBytes > MAX_LINE_BYTES;
    }
    if (this.lineBytes + first > MAX_LINE_BYTES) return true;
    const last = chunk.lastIndexOf(LF);
    // a line wholly inside the chunk can only be over the cap when the chunk is that long
    for (let at = first; last - at > MAX_LINE_BYTES; ) {
      const next = chunk.indexOf(LF, at + 1);
      if (next - at - 1 > MAX_LINE_BYTES) return true;
      at = next;
    }
    this.lineBytes = chunk.length - last - 1;
    return this.lineBytes > MAX_LINE_BYTES;
  }
}
