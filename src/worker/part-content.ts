// An attachment's decoded bytes, exactly as mailparser's decoder for the part gives them.
// Base64 as MTAs send it (the alphabet in lines, at most two '=' at the very end) is decoded by
// Node's native decoder (fast-paths/base64-decode.ts): for such text that is what libbase64 computes,
// chunk by chunk, after it drops the line ends. Anything else (spaces, stray bytes, '=' inside)
// goes through the part's own decoder, so odd input keeps mailparser's reading.
import type { Transform } from 'node:stream';
import { decodePlainBase64 } from '../fast-paths/index.js';
import type { EncodedPart } from './message-split.js';

export async function decodePart(part: Pick<EncodedPart, 'encoding' | 'body' | 'decoder'>): Promise<Buffer> {
  if (part.encoding === 'base64') {
    const bytes = part.body.length === 1 && part.body[0] !== undefined ? part.body[0] : Buffer.concat(part.body);
    const decoded = decodePlainBase64(bytes);
    if (decoded !== undefined) return decoded;
  }
  return throughDecoder(part.decoder(), part.body);
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
