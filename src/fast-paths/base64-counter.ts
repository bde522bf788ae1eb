// Replaces: decoding a base64 body with the part's own decoder (libbase64) to learn its length and first bytes.
// Proved by: test/unit/base64-counter.test.ts (the decoder's answer, for clean and messy base64 cut anywhere).
//
// The decoded length and first bytes of a base64 body, exactly as the part's own decoder
// (libbase64's, which mailparser uses) would give them, without decoding it all: base64 as
// MTAs send it (the alphabet and line ends) is only counted. From the first chunk holding
// anything else ('=' padding, spaces, stray bytes) the real decoder takes over, primed with
// the characters it would hold at that point, so the answer stays the decoder's own.
import type { Transform } from 'node:stream';
import { countBase64Alphabet } from '../net/base64-scan.js';
import type { BodyCounter, BodyFacts } from '../net/body-facts.js';
import { FIRST_BYTES } from '../words/message-facts.js';

/** Base64 characters whose decoding covers FIRST_BYTES (4 characters → 3 bytes). */
const HEAD_CHARS = Math.ceil(FIRST_BYTES / 3) * 4;

export class Base64Counter implements BodyCounter {
  /** Alphabet characters seen while counting. */
  private significant = 0;
  /** The first HEAD_CHARS of them. */
  private head = '';
  /** The last three of them: the quartet in progress. */
  private tail = '';
  private decoder: Transform | undefined;
  private decoderEnded: Promise<void> | undefined;
  private decoded = 0;
  private first = Buffer.alloc(0);

  constructor(private readonly newDecoder: () => Transform) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.decoder === undefined) {
      const significant = countBase64Alphabet(chunk);
      if (significant !== undefined) return this.count(chunk, significant);
      this.takeOver();
    }
    const decoder = this.decoder;
    if (decoder !== undefined && !decoder.write(chunk)) await new Promise((resolve) => decoder.once('drain', resolve));
  }

  async end(): Promise<BodyFacts> {
    if (this.decoder === undefined) {
      // every quartet gives 3 bytes; a last partial one of n characters gives floor(3n/4)
      const firstBytes = Buffer.from(Buffer.from(this.head, 'base64').subarray(0, FIRST_BYTES));
      return { firstBytes, decodedBytes: Math.floor((this.significant * 3) / 4) };
    }
    this.decoder.end();
    await this.decoderEnded;
    return { firstBytes: this.first, decodedBytes: this.decoded };
  }

  private count(chunk: Buffer, significant: number): void {
    if (significant === 0) return;
    if (this.head.length < HEAD_CHARS) this.head += withoutLineEnds(chunk).slice(0, HEAD_CHARS - this.head.length);
    this.tail = (this.tail + lastChars(chunk, 3)).slice(-3);
    this.significant += significant;
  }

  /** The real decoder from here on, primed to the state it would be in after what was counted. */
  private takeOver(): void {
    const decoder = this.newDecoder();
    this.decoder = decoder;
    this.decoderEnded = new Promise((resolve, reject) => {
      decoder.once('end', resolve);
      decoder.once('error', reject);
    });
    const firstKnown = this.head.length >= HEAD_CHARS;
    decoder.on('data', (out: Buffer) => {
      this.decoded += out.length;
      if (this.first.length < FIRST_BYTES) this.first = Buffer.concat([this.first, out.subarray(0, FIRST_BYTES - this.first.length)]);
    });
    if (firstKnown) {
      const carried = this.significant % 4;
      this.first = Buffer.from(Buffer.from(this.head, 'base64').subarray(0, FIRST_BYTES));
      this.decoded = ((this.significant - carried) / 4) * 3;
      if (carried > 0) decoder.write(Buffer.from(this.tail.slice(-carried), 'latin1'));
    } else if (this.significant > 0) {
      decoder.write(Buffer.from(this.head, 'latin1')); // all that was counted (under HEAD_CHARS)
    }
  }
}

/** The chunk's text without line ends, as far as it can hold HEAD_CHARS characters. */
function withoutLineEnds(chunk: Buffer): string {
  const start = chunk
    .subarray(0, 4 * HEAD_CHARS)
    .toString('latin1')
    .replace(/[\r\n]/g, '');
  return start.length >= HEAD_CHARS ? start : chunk.toString('latin1').replace(/[\r\n]/g, '');
}

/** The last `n` characters that are not line ends. */
function lastChars(chunk: Buffer, n: number): string {
  let found = '';
  for (let i = chunk.length - 1; i >= 0 && found.length < n; i -= 1) {
    const c = chunk[i];
    if (c !== 0x0d && c !== 0x0a && c !== undefined) found = String.fromCharCode(c) + found;
  }
  return found;
}
