// A document's bytes where the wire wants `base64Data`. The transport encodes them when the
// request is written and puts the base64 into the JSON text without JSON.stringify scanning it
// (json-text.ts): for a 10 MB PDF that scan and the copies around it cost ~45 ms of CPU. Anything
// else that serializes it (a test, a log) gets the same base64 text through toJSON().
export class Base64Data {
  constructor(readonly bytes: Uint8Array) {}

  /** The base64 text: standard alphabet, `=` padding, no line breaks. */
  toString(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
  }

  toJSON(): string {
    return this.toString();
  }
}
