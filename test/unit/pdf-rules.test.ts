import { describe, expect, it } from 'vitest';
import { safeFileName, selectPdfs } from '../../src/worker/pdf-rules.js';

const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
const part = (contentType: string, fileName: string | undefined, content: Buffer) => ({ contentType, fileName, content });

describe('selecting the letter PDFs', () => {
  it('keeps every PDF in order with its sha256 and lists the ignored attachments', () => {
    const result = selectPdfs([
      part('application/pdf', 'one.pdf', pdf),
      part('image/png', 'logo.png', Buffer.from('x')),
      part('application/octet-stream', 'two.pdf', pdf),
    ]);
    expect(result.pdfs.map((p) => p.fileName)).toEqual(['one.pdf', 'two.pdf']);
    expect(result.pdfs[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.ignored).toEqual(['"logo.png" (image/png)']);
  });
});

describe('safe file names', () => {
  it.each([
    ['../../etc/passwd.pdf', 'passwd.pdf'],
    ['C:\\Users\\x\\bill.pdf', 'bill.pdf'],
    ['bi\u0000ll\u001f.pdf', 'bill.pdf'],
    ['/evil/filename', 'filename.pdf'],
    ['..', 'letter-1.pdf'],
    ['', 'letter-1.pdf'],
    [undefined, 'letter-1.pdf'],
    ['.pdf', 'letter-1.pdf'],
    ['Preisänderung März.pdf', 'Preisänderung März.pdf'],
    ['statement', 'statement.pdf'],
  ] as const)('%j → %j', (name, expected) => {
    expect(safeFileName(name, 1)).toBe(expected);
  });

  it('bounds the length of a name', () => {
    expect(safeFileName(`${'a'.repeat(500)}.pdf`, 1).length).toBeLessThanOrEqual(204);
  });
});
