// Replaces: the part's own base64 decoder (libbase64's stream, as mailparser uses it).
// Proved by: test/unit/base64-decode.test.ts and test/unit/part-content.test.ts (libbase64's bytes).
//
// Plain base64 (the alphabet in lines, then at most two '=', line ends around them) decoded in
// one pass of 64 KiB pieces, each cut after a whole quartet, into one output buffer. A 13.7 MB
// text decoded whole went through a 13.7 MB latin1 string of its own (fresh memory, faulted in
// per letter); the pieces' strings are small and short-lived. Node decodes each piece with the
// same native decoder as the whole text, quartet by quartet, so the bytes are the same.
import { countBase64Alphabet } from '../net/base64-scan.js';

const CR = 0x0d;
const LF = 0x0a;
const EQUALS = 0x3d;
const PIECE_BYTES = 64 * 1024;

/** The decoded bytes of plain base64; undefined for anything else (spaces, stray bytes, '=' inside, three '='). */
export function decodePlainBase64(bytes: Uint8Array): Buffer | undefined {
  let end = bytes.length;
  let padding = 0;
  for (; end > 0; end -= 1) {
    const c = bytes[end - 1];
    if (c === EQUALS) padding += 1;
    else if (c !== CR && c !== LF) break;
  }
  if (padding > 2) return undefined;

  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Every 4 characters give at most 3 bytes; line ends and padding make this a little more than needed.
  const out = Buffer.allocUnsafe(Math.floor((bytes.length * 3) / 4));
  let written = 0;
  let from = 0;
  while (from < end) {
    const to = Math.min(from + PIECE_BYTES, end);
    const count = countBase64Alphabet(bytes.subarray(from, to));
    if (count === undefined) return undefined;
    if (to === end) {
      // the last piece takes the padding and whatever partial quartet is left, as the whole text would
      written += out.write(text.toString('latin1', from, bytes.length), written, 'base64');
      break;
    }
    // Cut before the characters past the piece's last whole quartet: the next piece starts with them.
    let cut = to;
    for (let partial = count % 4; partial > 0; cut -= 1) {
      const c = bytes[cut - 1];
      if (c !== CR && c !== LF) partial -= 1;
    }
    // fewer than 4 characters in a whole piece of line ends: no quartet to cut after (never from an MTA)
    if (cut <= from) return undefined;
    written += out.write(text.toString('latin1', from, cut), written, 'base64');
    from = cut;
  }
  return out.subarray(0, written);
}
