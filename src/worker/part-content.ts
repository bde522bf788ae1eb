// An attachment's decoded bytes, exactly as mailparser's decoder for the part gives them.
// Base64 as MTAs send it (the alphabet in lines, at most two '=' at the very end) is decoded in
// one native call: for such text that is what libbase64 computes, chunk by chunk, after it drops
// the line ends. Anything else (spaces, stray bytes, '=' inside) goes through the part's own
// decoder, so odd input keeps mailparser's reading.
import type { Transform } from 'node:stream';
import { countBase64Alphabet } from '../mime/base64-scan.js';
import type { EncodedPart } from './message-split.js';

export async function decodePart(part: Pick<EncodedPart, 'encoding' | 'body' | 'decoder'>): Promise<Buffer> {
  if (part.encoding === 'base64') {
    const bytes = part.body.length === 1 && part.body[0] !== undefined ? part.body[0] : Buffer.concat(part.body);
    if (isPlainBase64(bytes)) return Buffer.from(bytes.toString('latin1'), 'base64');
  }
  return throughDecoder(part.decoder(), part.body);
}

/**
 * Alphabet and line ends only, then at most two '=' (line ends around them allowed). For such
 * text one native decode equals libbase64's: it drops the line ends, decodes whole quartets as
 * they come and the rest at the end, all with the same native decoder.
 */
export function isPlainBase64(bytes: Uint8Array): boolean {
  let end = bytes.length;
  let padding = 0;
  for (; end > 0; end -= 1) {
    const c = bytes[end - 1];
    if (c === 0x3d) padding += 1;
    else if (c !== 0x0d && c !== 0x0a) break;
  }
  return padding <= 2 && countBase64Alphabet(bytes.subarray(0, end)) !== undefined;
}

async function throughDecoder(decoder: Transform, body: readonly Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  decoder.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    decoder.once('end', resolve);
    decoder.once('error', reject);
  });
  for (const chunk of body) decoder.write(chunk);
  decoder.end();
  await ended;
  return Buffer.concat(out);
}
