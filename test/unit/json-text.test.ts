import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JSON_PIECE_CHARS, type JsonText, jsonText } from '../../src/fast-paths/json-text.js';
import { BASE64_SLICE_BYTES, Base64Data } from '../../src/net/base64-data.js';

// What the API must receive: the JSON text of the same body with each document as its base64 string.
const asTextJson = (value: unknown): string =>
  JSON.stringify(value, (_key, field: unknown) => (field instanceof Base64Data ? String(field) : field));

// The same text with every character above U+007F as its \u escape, one UTF-16 unit at a time.
const asAsciiJson = (value: unknown): string => {
  let ascii = '';
  for (const c of asTextJson(value).split('')) {
    const code = c.charCodeAt(0);
    ascii += code < 0x80 ? c : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return ascii;
};

/** The pieces as they would be written, checked piece by piece, and joined. */
const written = (text: JsonText): string => {
  const pieces = [...text.pieces()];
  for (const piece of pieces) {
    expect(piece.length).toBeGreaterThan(0);
    expect(piece.length).toBeLessThanOrEqual(JSON_PIECE_CHARS);
  }
  return pieces.join('');
};

describe('the request body as JSON text', () => {
  const pdfA = randomBytes(10_001);
  const pdfB = Buffer.from('%PDF-1.4 short');

  it.each([
    ['no document', { title: 'Bill', description: 'plain', parts: [{ id: 'kept' }] }],
    ['one document', { title: 'Bill', parts: [{ fileName: 'a.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdfA) }] }],
    [
      'two documents around kept ones, a text full of JSON escapes and non-ASCII',
      {
        title: 'Rechnung “Oktober” \u00e9\u{1F4C4}',
        description: 'line 1\r\n"quoted" \\ back\u0001slash\ttab',
        parts: [
          { id: 'x' },
          { fileName: 'a.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdfA) },
          { fileName: 'b.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdfB) },
        ],
      },
    ],
    ['an empty document', { parts: [{ fileName: 'e.pdf', base64Data: new Base64Data(Buffer.alloc(0)) }] }],
    [
      'documents straight in an array, undefined fields, a Date',
      { list: [new Base64Data(pdfB), undefined, new Base64Data(pdfA)], gone: undefined, at: new Date(0) },
    ],
    ['a document given as a string', { parts: [{ fileName: 's.pdf', base64Data: pdfB.toString('base64') }] }],
  ])('is the JSON text with the base64 in place, in ASCII only, whole or in pieces (%s)', (_name, body) => {
    const text = jsonText(body);
    expect(text.toString()).toBe(asAsciiJson(body));
    expect(written(text)).toBe(asAsciiJson(body));
    expect(text.length).toBe(asAsciiJson(body).length);
    expect(JSON.parse(text.toString())).toEqual(JSON.parse(asTextJson(body)));
    expect(text.toString()).toMatch(/^[\x20-\x7e]*$/);
  });

  it('is the same text as JSON.stringify makes when the body is ASCII', () => {
    const body = { title: 'Bill "10"\\', description: 'line 1\r\nline 2\u0001', parts: [{ base64Data: new Base64Data(pdfA) }] };
    expect(jsonText(body).toString()).toBe(asTextJson(body));
    expect(written(jsonText(body))).toBe(asTextJson(body));
  });

  it('writes each character above U+007F as its \\u escape, astral ones as a surrogate pair, a lone surrogate as JSON.stringify does', () => {
    const body = { title: '\u00e9 \u201cx\u201d \u{1F4C4} \u007f \ud800', parts: [{ base64Data: new Base64Data(pdfB) }] };
    const expected = `{"title":"\\u00e9 \\u201cx\\u201d \\ud83d\\udcc4 \u007f \\ud800","parts":[{"base64Data":"${pdfB.toString('base64')}"}]}`;
    expect(jsonText(body).toString()).toBe(expected);
    expect(written(jsonText(body))).toBe(expected);
  });

  it('sends each document as the standard base64 of its bytes, whatever view they come from', () => {
    const backing = Buffer.from(`xx${pdfB.toString('latin1')}yy`, 'latin1');
    const view = backing.subarray(2, 2 + pdfB.length);
    const text = jsonText({ parts: [{ base64Data: new Base64Data(view) }] });
    expect(JSON.parse(text.toString())).toEqual({ parts: [{ base64Data: 'JVBERi0xLjQgc2hvcnQ=' }] });
    expect(written(text)).toBe(text.toString());
  });

  it('leaves a text that looks like a marker alone', () => {
    const body = { description: '00000000-0000-0000-0000-000000000000:0', parts: [{ base64Data: new Base64Data(pdfB) }] };
    expect(jsonText(body).toString()).toBe(asTextJson(body));
  });
});

describe('the request body in pieces', () => {
  // around the slice size, and several slices with each remainder of a division by 3
  const sizes = [
    0,
    1,
    2,
    3,
    4,
    BASE64_SLICE_BYTES - 1,
    BASE64_SLICE_BYTES,
    BASE64_SLICE_BYTES + 1,
    3 * BASE64_SLICE_BYTES + 1,
    5 * BASE64_SLICE_BYTES + 2,
    4 * BASE64_SLICE_BYTES + 30_000,
  ];

  it.each(sizes)('cuts a document of %i bytes into base64 pieces that join to its base64, of the length declared', (size) => {
    const bytes = randomBytes(size);
    const document = new Base64Data(bytes);
    const pieces = [...document.base64Pieces()];
    expect(pieces.join('')).toBe(bytes.toString('base64'));
    expect(document.base64Length).toBe(bytes.toString('base64').length);
    expect(pieces).toHaveLength(Math.ceil(size / BASE64_SLICE_BYTES));
    // padding only at the very end: every piece but the last encodes whole groups of 3 bytes
    for (const piece of pieces.slice(0, -1)) expect(piece).not.toContain('=');
  });

  it('makes the base64 of a view of a larger buffer, from its own bytes only', () => {
    const backing = randomBytes(3 * BASE64_SLICE_BYTES);
    const view = backing.subarray(7, 7 + 2 * BASE64_SLICE_BYTES + 5);
    expect([...new Base64Data(view).base64Pieces()].join('')).toBe(Buffer.from(view).toString('base64'));
  });

  it('is the JSON text byte for byte with several documents of every size, non-ASCII text around them, a long text between', () => {
    const documents = sizes.map((size) => new Base64Data(randomBytes(size)));
    const body = {
      title: 'Rechnung “März” \u{1F4C4}',
      description: `Zeile \u00fc ${'long text '.repeat(20_000)}`,
      parts: documents.map((base64Data, index) => ({ fileName: `${index}-\u00e4.pdf`, mimeType: 'application/pdf', base64Data })),
    };
    const text = jsonText(body);
    const expected = asAsciiJson(body);
    expect(written(text)).toBe(expected);
    expect(text.length).toBe(expected.length);
    expect(expected).toMatch(/^[\x20-\x7e]*$/);
  });

  it('encodes no base64 before its pieces are asked for, and a slice at a time', () => {
    const bytes = randomBytes(4 * BASE64_SLICE_BYTES);
    const document = new Base64Data(bytes);
    const text = jsonText({ parts: [{ base64Data: document }] });
    const iterator = text.pieces();
    expect(iterator.next().value).toBe('{"parts":[{"base64Data":"');
    expect(iterator.next().value).toBe(bytes.subarray(0, BASE64_SLICE_BYTES).toString('base64'));
    bytes.fill(0, BASE64_SLICE_BYTES); // what is encoded next comes from the bytes as they are now
    expect(iterator.next().value).toBe(Buffer.alloc(BASE64_SLICE_BYTES).toString('base64'));
  });
});
