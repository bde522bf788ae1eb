// The byte scan must say what the definition says: every byte is the base64 alphabet, CR or LF,
// and then how many are the alphabet. The expected answer is computed here byte by byte from
// the input, wherever the bytes sit in memory (odd and even offsets, odd and even lengths).
import { describe, expect, it } from 'vitest';
import { countBase64Alphabet } from '../../src/net/base64-scan.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const ALPHABET = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'));

function byDefinition(bytes: Uint8Array): number | undefined {
  let alphabet = 0;
  for (const b of bytes) {
    if (ALPHABET.has(b)) alphabet += 1;
    else if (b !== 0x0d && b !== 0x0a) return undefined;
  }
  return alphabet;
}

/** `bytes` copied to start at `offset` inside a larger allocation. */
function at(offset: number, bytes: Uint8Array): Uint8Array {
  const backing = new Uint8Array(offset + bytes.length + 3);
  backing.set(bytes, offset);
  return backing.subarray(offset, offset + bytes.length);
}

const random = mulberry32(42);
const base64Lines = (n: number): Buffer =>
  Buffer.from(
    (
      Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)))
        .toString('base64')
        .replace(/=+$/, '')
        .match(/.{1,76}/g) ?? []
    ).join('\r\n'),
  );

describe('counting base64 alphabet characters', () => {
  it.each([0, 1, 2, 3, 77, 78, 1000])('counts every alphabet character of %i-byte base64 lines at odd and even offsets', (n) => {
    const text = base64Lines(n);
    for (const offset of [0, 1, 2, 3]) {
      const bytes = at(offset, text);
      expect(countBase64Alphabet(bytes)).toBe(byDefinition(bytes));
      expect(countBase64Alphabet(bytes)).toBe(text.toString('latin1').replace(/\r\n/g, '').length);
    }
  });

  it('refuses every byte outside the alphabet and line ends, at every position modulo 4, wherever the bytes start', () => {
    const text = base64Lines(30);
    const middle = Math.floor(text.length / 2);
    for (let value = 0; value < 256; value += 1) {
      if (ALPHABET.has(value) || value === 0x0d || value === 0x0a) continue;
      const positions = [0, 1, 2, 3, middle, middle + 1, middle + 2, middle + 3, text.length - 3, text.length - 2, text.length - 1];
      for (const position of positions) {
        for (const offset of [0, 1, 2, 3]) {
          const bytes = at(offset, text);
          bytes[position] = value;
          expect(countBase64Alphabet(bytes), `byte ${value} at ${position}, offset ${offset}`).toBeUndefined();
        }
      }
    }
  });

  it('agrees with the definition on random bytes drawn from the alphabet, line ends and a few others', () => {
    const pool = Buffer.from('AZaz09+/\r\n\r\n=- \t\u00ff', 'latin1');
    for (let round = 0; round < 2000; round += 1) {
      const length = Math.floor(random() * 40);
      const clean = random() < 0.5;
      const bytes = Array.from({ length }, () => pool[Math.floor(random() * (clean ? 10 : pool.length))] ?? 0);
      const input = at(Math.floor(random() * 4), Uint8Array.from(bytes));
      expect(countBase64Alphabet(input)).toBe(byDefinition(input));
    }
  });
});
