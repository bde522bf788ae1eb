// The base64 counter against the decoder it stands in for (libbase64's, as mailsplit gives it
// to mailparser): the same length and first bytes for clean base64 and for every kind of mess,
// cut into chunks anywhere.
import { MimeNode } from '@zone-eu/mailsplit';
import { describe, expect, it } from 'vitest';
import { Base64Counter } from '../../src/fast-paths/base64-counter.js';
import { mulberry32 } from '../helpers/seeded-random.js';

function base64Decoder() {
  const node = new MimeNode(false);
  node.addHeaderChunk(Buffer.from('Content-Transfer-Encoding: base64\r\n\r\n'));
  node.parseHeaders();
  return node.getDecoder();
}

async function decoded(chunks: readonly Buffer[]): Promise<{ firstBytes: Buffer; decodedBytes: number }> {
  const decoder = base64Decoder();
  const out: Buffer[] = [];
  decoder.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => decoder.once('end', resolve));
  for (const chunk of chunks) decoder.write(chunk);
  decoder.end();
  await ended;
  const all = Buffer.concat(out);
  return { firstBytes: all.subarray(0, 8), decodedBytes: all.length };
}

async function counted(chunks: readonly Buffer[]): Promise<{ firstBytes: Buffer; decodedBytes: number }> {
  const counter = new Base64Counter(base64Decoder);
  for (const chunk of chunks) await counter.write(chunk);
  return counter.end();
}

function cut(data: Buffer, random: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; ) {
    const size = 1 + Math.floor(random() * (random() < 0.3 ? 8 : 3000));
    chunks.push(data.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const random = mulberry32(20261122);
const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
const lines = (data: Buffer, width = 76, end = '\r\n'): string =>
  data.toString('base64').replace(new RegExp(`.{${width}}`, 'g'), `$&${end}`);

const SHAPES: ReadonlyArray<readonly [string, () => string | Buffer]> = [
  ['clean base64 with CRLF lines', () => lines(bytes(5000))],
  ['clean base64 with LF lines and no padding', () => lines(bytes(3 * 700), 64, '\n')],
  ['padding at the end', () => lines(bytes(3 * 500 + 1))],
  ['each line padded on its own', () => Array.from({ length: 20 }, () => bytes(40).toString('base64')).join('\r\n')],
  ['spaces and tabs inside', () => lines(bytes(3000)).replace(/(.{10})/g, '$1 \t')],
  [
    'stray bytes above 127',
    () => Buffer.concat([Buffer.from(lines(bytes(900))), Buffer.from([0xc1, 0xff, 0x80]), Buffer.from(lines(bytes(900)))]),
  ],
  ['URL-safe characters', () => lines(bytes(2000)).replace(/\+/g, '-').replace(/\//g, '_')],
  ['not base64 at all', () => '!!!! this is *not* base64 at all ####\r\n@@@@ %%%% ^^^^'],
  ['very short', () => 'JVBE'],
  ['one character', () => 'J'],
  ['empty', () => ''],
  ['junk after a clean start', () => `${lines(bytes(600))}\r\n==garbage== ${lines(bytes(60))}`],
  ['junk within the first characters', () => `JV*BERi0xLj${lines(bytes(300))}`],
];

describe('counting base64 instead of decoding it', () => {
  it.each(SHAPES)("gives the decoder's length and first bytes for %s, however it is cut", async (_shape, make) => {
    const made = make();
    const data = typeof made === 'string' ? Buffer.from(made, 'latin1') : made;
    const expected = await decoded([data]);
    for (let round = 0; round < 25; round += 1) {
      const chunks = cut(data, random);
      expect(await counted(chunks)).toEqual(await decoded(chunks));
    }
    expect(await counted([data])).toEqual(expected);
  });
});
