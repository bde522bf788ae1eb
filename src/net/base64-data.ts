// A document's bytes where the wire wants `base64Data`. The transport encodes them while the
// request is written, a slice at a time, and puts the base64 into the JSON text without
// JSON.stringify scanning it (fast-paths/json-text.ts): for a 10 MB PDF that scan and the copies around it
// cost ~45 ms of CPU, and the document's whole base64 as one string (13.7 MB) was a fresh large
// object per call that drove the worker's old-generation collections. Anything else that
// serializes it (a test, a log) gets the same base64 text through toJSON().
export class Base64Data {
  constructor(readonly bytes: Uint8Array) {}

  /** The base64 text's length: 4 characters for every 3 bytes or part of them (with `=` padding). */
  get base64Length(): number {
    return 4 * Math.ceil(this.bytes.byteLength / 3);
  }

  /**
   * The base64 text in pieces of at most 64 Ki characters, made as they are asked for. Each piece
   * encodes 48 KiB of the bytes (a multiple of 3: no padding inside, so the pieces joined are the
   * whole base64 text) and is small enough for V8's young generation.
   */
  *base64Pieces(): Generator<string, void, undefined> {
    const { buffer, byteOffset, byteLength } = this.bytes;
    for (let at = 0; at < byteLength; at += BASE64_SLICE_BYTES) {
      yield Buffer.from(buffer, byteOffset + at, Math.min(BASE64_SLICE_BYTES, byteLength - at)).toString('base64');
    }
  }

  /** The base64 text: standard alphabet, `=` padding, no line breaks. */
  toString(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
  }

  toJSON(): string {
    return this.toString();
  }
}

/** 48 KiB of bytes, 64 KiB of base64: a multiple of 3 bytes. */
export const BASE64_SLICE_BYTES = 48 * 1024;
