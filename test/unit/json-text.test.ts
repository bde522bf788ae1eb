import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Base64Data } from '../../src/sender-api/base64-data.js';
import { jsonText } from '../../src/sender-api/json-text.js';

// What the API must receive: the JSON text of the same body with each document as its base64 string.
const asTextJson = (value: unknown): string =>
  JSON.stringify(value, (_key, field: unknown) => (field instanceof Base64Data ? String(field) : field));

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
  ])('is the JSON text with the base64 in place, in ASCII only (%s)', (_name, body) => {
    const text = jsonText(body);
    expect(JSON.parse(text)).toEqual(JSON.parse(asTextJson(body)));
    expect(text).toMatch(/^[\x20-\x7e]*$/);
  });

  it('is the same text as JSON.stringify makes when the body is ASCII', () => {
    const body = { title: 'Bill "10"\\', description: 'line 1\r\nline 2\u0001', parts: [{ base64Data: new Base64Data(pdfA) }] };
    expect(jsonText(body)).toBe(asTextJson(body));
  });

  it('writes each character above U+007F as its \\u escape, astral ones as a surrogate pair, a lone surrogate as JSON.stringify does', () => {
    const body = { title: '\u00e9 \u201cx\u201d \u{1F4C4} \u007f \ud800', parts: [{ base64Data: new Base64Data(pdfB) }] };
    expect(jsonText(body)).toBe(
      `{"title":"\\u00e9 \\u201cx\\u201d \\ud83d\\udcc4 \u007f \\ud800","parts":[{"base64Data":"${pdfB.toString('base64')}"}]}`,
    );
  });

  it('sends each document as the standard base64 of its bytes, whatever view they come from', () => {
    const backing = Buffer.from(`xx${pdfB.toString('latin1')}yy`, 'latin1');
    const view = backing.subarray(2, 2 + pdfB.length);
    const parsed = JSON.parse(jsonText({ parts: [{ base64Data: new Base64Data(view) }] }));
    expect(parsed).toEqual({ parts: [{ base64Data: 'JVBERi0xLjQgc2hvcnQ=' }] });
  });

  it('leaves a text that looks like a marker alone', () => {
    const body = { description: '00000000-0000-0000-0000-000000000000:0', parts: [{ base64Data: new Base64Data(pdfB) }] };
    expect(jsonText(body)).toBe(asTextJson(body));
  });
});
