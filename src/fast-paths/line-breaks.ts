// Replaces: mailauth 7.1's DkimVerifier#ensureLinebreaks (bare LF → CRLF, a loop per byte).
// Proved by: test/unit/dkim-body-hash-equivalence.test.ts (whole messages with bare LF and CR at chunk ends).
//
// Every bare LF as CRLF, as mailauth's message parser does before canonicalization, but found
// with Buffer.indexOf per line instead of a JavaScript loop per byte. An LF counts as bare when
// the byte before it (in this chunk, or the last byte of the previous one) is not CR.
const LF = 0x0a;
const CR = 0x0d;
const CRLF = Buffer.from('\r\n');

/** `input` itself when it has no bare LF, else one new buffer with each rewritten. */
export function bareLineFeedsToCrlf(input: Buffer, previousByte: number | undefined): Buffer {
  const pieces: Buffer[] = [];
  let copied = 0;
  for (let lf = input.indexOf(LF); lf >= 0; lf = input.indexOf(LF, lf + 1)) {
    const before = lf === 0 ? previousByte : input[lf - 1];
    if (before === CR) continue;
    pieces.push(input.subarray(copied, lf), CRLF);
    copied = lf + 1;
  }
  if (copied === 0) return input;
  pieces.push(input.subarray(copied));
  return Buffer.concat(pieces);
}
