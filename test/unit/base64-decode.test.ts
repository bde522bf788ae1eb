// Plain base64 decoded in 64 KiB pieces (src/fast-paths/base64-decode.ts) must give the bytes that were
// encoded, and exactly what Node's decoder gives for the whole text, wherever the pieces' cuts
// fall: in a line, on a line end, inside a CRLF, in the padding, with 1 to 3 characters carried
// into the next piece. The cases are sized around the piece length.

import { Decoder } from 'libbase64';
import { describe, expect, it } from 'vitest';
import { decodePlainBase64 } from '../../src/fast-paths/base64-decode.js';
import { decodePart } from '../../src/worker/part-content.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const PIECE = 64 * 1024;
const random = mulberry32(64);
const bytesOf = (n: number): Buffer => {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i += 1) bytes[i] = Math.floor(random() * 256);
  return bytes;
};

function lines(text: string, width: number, eol: string): string {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += width) out.push(text.slice(at, at + width));
  return out.join(eol) + eol;
}

describe('decoding plain base64 in pieces', () => {
  const widths: readonly [number, string][] = [
    [76, '\r\n'],
    [75, '\r\n'],
    [1, '\r\n'],
    [3, '\n'],
    [64, '\r'],
    [1_000_000, '\r\n'],
  ];
  // encoded lengths just under, at and over one and two pieces, and a few quartets either side
  const sizes = [PIECE, 2 * PIECE, 3 * PIECE + 7].flatMap((chars) =>
    [-9, -4, -3, -1, 0, 1, 2, 5].map((d) => Math.floor(((chars + d) * 3) / 4)),
  );

  it.each(widths)('gives back the encoded bytes and what one native decode gives (lines of %i, ends %j)', (width, eol) => {
    for (const n of sizes) {
      const bytes = bytesOf(n);
      const text = Buffer.from(lines(bytes.toString('base64'), width, eol), 'latin1');
      const decoded = decodePlainBase64(text);
      expect(decoded, `${n} bytes`).toEqual(bytes);
      expect(decoded).toEqual(Buffer.from(text.toString('latin1'), 'base64'));
    }
  });

  it('decodes every cut of a piece inside the text: shifted by 0 to 5 leading line ends', () => {
    const bytes = bytesOf(PIECE);
    for (let shift = 0; shift <= 5; shift += 1) {
      const text = Buffer.from('\r\n'.repeat(shift) + lines(bytes.toString('base64'), 76, '\r\n'), 'latin1');
      expect(decodePlainBase64(text), `shift ${shift}`).toEqual(bytes);
    }
  });

  it('refuses a stray byte in a later piece, so the caller falls back to the part decoder', () => {
    const text = Buffer.from(lines(bytesOf(3 * PIECE).toString('base64'), 76, '\r\n'), 'latin1');
    text[2 * PIECE + 100] = 0x20;
    expect(decodePlainBase64(text)).toBeUndefined();
  });

  it('leaves a piece of line ends around fewer than 4 characters to the part decoder, which reads it as libbase64 does', async () => {
    const text = `QUJ${'\r\n'.repeat(PIECE)}DRA==\r\n`;
    expect(decodePlainBase64(Buffer.from(text, 'latin1'))).toBeUndefined();
    const decoded = await decodePart({ encoding: 'base64', body: [Buffer.from(text, 'latin1')], decoder: () => new Decoder() });
    expect(decoded).toEqual(Buffer.from('ABCD'));
  });
});
