// An attachment's bytes as the worker decodes them must be exactly mailparser's (libbase64's
// stream decoder): for base64 as MTAs send it, whatever the line length, and for odd base64
// (spaces, '=' inside, stray bytes), which goes through libbase64 itself.
import { createHash } from 'node:crypto';
import { Decoder } from 'libbase64';
import { describe, expect, it } from 'vitest';
import { decodePlainBase64 } from '../../src/fast-paths/base64-decode.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { decide } from '../../src/worker/decide.js';
import { parseMessage } from '../../src/worker/parse-message.js';
import { decodePart } from '../../src/worker/part-content.js';
import { mulberry32 } from '../helpers/seeded-random.js';

/** libbase64's reading, fed in the given chunks. */
async function libbase64(chunks: readonly Buffer[]): Promise<Buffer> {
  const decoder = new Decoder();
  const out: Buffer[] = [];
  decoder.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => decoder.once('end', resolve));
  for (const c of chunks) decoder.write(c);
  decoder.end();
  await ended;
  return Buffer.concat(out);
}

function lines(text: string, width: number, eol = '\r\n'): string {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += width) out.push(text.slice(at, at + width));
  return out.join(eol) + eol;
}

function split(text: string, at: readonly number[]): Buffer[] {
  const cuts = [0, ...at.filter((n) => n > 0 && n < text.length), text.length];
  return cuts.slice(1).map((end, i) => Buffer.from(text.slice(cuts[i], end), 'latin1'));
}

const part = (text: string, cuts: readonly number[] = []) => ({
  encoding: 'base64',
  body: split(text, cuts),
  decoder: () => new Decoder(),
});

const random = mulberry32(15);
const bytesOf = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));

describe('decoding an attachment', () => {
  it.each([0, 1, 2, 3, 4, 5, 57, 58, 59, 1000, 4097])('gives back exactly %i bytes sent as base64 in 76-character lines', async (n) => {
    const bytes = bytesOf(n);
    const text = lines(bytes.toString('base64'), 76);
    expect(decodePlainBase64(Buffer.from(text, 'latin1'))).toEqual(bytes); // the native path
    expect(await decodePart(part(text, [1, 77, 500]))).toEqual(bytes);
  });

  it.each([
    ['one character per line', 1, '\r\n'],
    ['three characters per line', 3, '\r\n'],
    ['odd 57-character lines', 57, '\r\n'],
    ['one line of everything', 100_000, '\r\n'],
    ['bare LF line ends', 76, '\n'],
    ['bare CR line ends', 76, '\r'],
  ])('gives back the bytes from %s', async (_name, width, eol) => {
    const bytes = bytesOf(3001);
    const text = lines(bytes.toString('base64'), width, eol);
    expect(decodePlainBase64(Buffer.from(text, 'latin1'))).toEqual(bytes); // the native path
    expect(await decodePart(part(text, [2, 999]))).toEqual(bytes);
  });

  it('gives back the bytes when the padding is split over two lines', async () => {
    const bytes = bytesOf(31); // 31 bytes end in "=="
    const text = `${bytes.toString('base64').slice(0, -1)}\r\n=\r\n`;
    expect(text).toMatch(/=\r\n=\r\n$/);
    expect(await decodePart(part(text))).toEqual(bytes);
  });

  it.each([
    ['spaces inside lines', (t: string) => t.replaceAll('A', 'A ')],
    ['tabs at line ends', (t: string) => t.replaceAll('\r\n', '\t\r\n')],
    ['padding in the middle (two encodings glued)', (t: string) => `QQ==\r\n${t}`],
    ['three padding characters', (t: string) => `${t.trimEnd()}===\r\n`],
    ['stray bytes', (t: string) => t.replace('B', '\u00e9*')],
    ['a dangling character', (t: string) => `${t.trimEnd()}Q\r\n`],
    ['missing padding', (t: string) => t.replace(/=+\r\n$/, '\r\n')],
  ])('reads base64 with %s as mailparser does', async (_name, spoil) => {
    for (const n of [29, 30, 31]) {
      const text = spoil(lines(bytesOf(n).toString('base64'), 76));
      // libbase64's answer for such text depends on where its chunks end: the same cuts for both
      const expected = await libbase64(split(text, [3, 40]));
      expect(await decodePart(part(text, [3, 40]))).toEqual(expected);
    }
  });

  it('treats text with anything but the alphabet, line ends and final padding as not plain', () => {
    expect(decodePlainBase64(Buffer.from('QUJD\r\nRA==\r\n'))).toEqual(Buffer.from('ABCD'));
    expect(decodePlainBase64(Buffer.from('QUJD RA=='))).toBeUndefined();
    expect(decodePlainBase64(Buffer.from('QQ==QQ=='))).toBeUndefined();
    expect(decodePlainBase64(Buffer.from('QQ==='))).toBeUndefined();
  });

  it('agrees with libbase64 on random base64-like text of every length and padding', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    for (let round = 0; round < 400; round += 1) {
      const length = Math.floor(random() * 40);
      let text = '';
      for (let i = 0; i < length; i += 1) text += random() < 0.1 ? '\r\n' : alphabet[Math.floor(random() * 64)];
      text += '='.repeat(Math.floor(random() * 3)) + (random() < 0.5 ? '\r\n' : '');
      const expected = await libbase64([Buffer.from(text, 'latin1')]);
      expect(await decodePart(part(text, [Math.floor(random() * text.length)])), JSON.stringify(text)).toEqual(expected);
    }
  });
});

describe('a PDF in a message, through the worker', () => {
  const directory = parseSenderDirectory(
    {
      senders: [
        {
          senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
          companyNameEn: 'Acme',
          addresses: ['letters@acme.example'],
          apiClientId: 'acme',
          apiClientSecret: 's',
        },
      ],
    },
    {},
  );
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), bytesOf(70_001)]);
  const messageWith = (body: string): Buffer =>
    Buffer.from(
      [
        'From: letters@acme.example',
        'Subject: Bill',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'Dear customer,',
        '--b',
        'Content-Type: application/pdf; name="bill.pdf"',
        'Content-Transfer-Encoding: base64',
        'Content-Disposition: attachment; filename="bill.pdf"',
        '',
        `${body}--b--`,
        '',
      ].join('\r\n'),
      'latin1',
    );

  it.each([
    ['76-character lines', lines(pdf.toString('base64'), 76)],
    ['63-character lines', lines(pdf.toString('base64'), 63)],
    ['one long line', lines(pdf.toString('base64'), 1_000_000)],
    ['spaces sprinkled in', lines(pdf.toString('base64'), 76).replaceAll('\r\n', ' \r\n')],
  ])('reaches the letter as base64 that decodes to exactly the attached bytes (%s)', async (_name, body) => {
    const decision = decide(await parseMessage(messageWith(body)), { directory, maxPdfBytes: 1_000_000 });
    expect(decision.kind).toBe('letter');
    if (decision.kind !== 'letter') return;
    const [sent] = decision.letter.parts;
    expect(Buffer.from(String(sent?.base64Data), 'base64')).toEqual(pdf);
    expect(String(sent?.base64Data)).toBe(pdf.toString('base64'));
    expect(decision.pdfs[0]?.sha256).toBe(createHash('sha256').update(pdf).digest('hex'));
  });
});
