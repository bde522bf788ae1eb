import { describe, expect, it } from 'vitest';
import { claimsToBePdf, safeFileName, selectPdfs } from '../../src/worker/pdf-rules.js';

const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
const zip = Buffer.from('PK\u0003\u0004rest-of-a-zip', 'latin1');
const part = (contentType: string, fileName: string | undefined, content: Buffer) => ({ contentType, fileName, content });

describe('which attachments claim to be PDFs', () => {
  it.each([
    ['application/pdf', 'x.pdf', true],
    ['application/pdf', undefined, true],
    ['application/octet-stream', 'Bill.PDF', true],
    ['application/octet-stream', 'bill.zip', false],
    ['application/octet-stream', undefined, false],
    ['image/png', 'logo.pdf', false],
    ['text/plain', 'notes.txt', false],
  ] as const)('%s named %s → %s', (type, name, expected) => {
    expect(claimsToBePdf(part(type, name, pdf))).toBe(expected);
  });
});

describe('selecting the letter PDFs', () => {
  it('rejects a message without any PDF as NoPdfAttachment', () => {
    const result = selectPdfs([part('image/png', 'logo.png', Buffer.from('png'))], 1000);
    expect(result).toMatchObject({ ok: false, reasonCode: 'NoPdfAttachment' });
  });

  it('rejects a .pdf whose bytes are not a PDF as NotAPdf, naming the file', () => {
    const result = selectPdfs([part('application/octet-stream', 'bill.pdf', zip)], 1000);
    expect(result).toMatchObject({ ok: false, reasonCode: 'NotAPdf' });
    expect(result.ok ? '' : result.reason).toContain('bill.pdf');
  });

  it('rejects a PDF over the limit as PdfTooLarge, and accepts one exactly at it', () => {
    expect(selectPdfs([part('application/pdf', 'a.pdf', pdf)], pdf.length - 1)).toMatchObject({ ok: false, reasonCode: 'PdfTooLarge' });
    expect(selectPdfs([part('application/pdf', 'a.pdf', pdf)], pdf.length)).toMatchObject({ ok: true });
  });

  it('keeps every PDF in order with its sha256 and lists the ignored attachments', () => {
    const result = selectPdfs([part('application/pdf', 'one.pdf', pdf), part('image/png', 'logo.png', Buffer.from('x')), part('application/octet-stream', 'two.pdf', pdf)], 1000);
    expect(result.ok && result.pdfs.map((p) => p.fileName)).toEqual(['one.pdf', 'two.pdf']);
    expect(result.ok && result.pdfs[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.ok && result.ignored).toEqual(['"logo.png" (image/png)']);
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
