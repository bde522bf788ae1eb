import { describe, expect, it } from 'vitest';
import { issuedAtOf } from '../../src/portal/form-tokens.js';
import { composeUpload, type Upload } from '../../src/portal/upload.js';
import type { Sender } from '../../src/senders/directory.js';

const sender: Sender = {
  senderId: 's-1',
  companyNameEn: 'Acme',
  addresses: ['letters@acme.example'],
  apiClientId: 'acme',
  apiClientSecret: 'unused',
  allowedIps: undefined,
  notify: [],
  allowPdfForms: false,
};
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

function upload(formToken: string): Upload {
  return {
    sender,
    userEmail: 'clerk@acme.example',
    clientIp: '198.51.100.7',
    title: 'October bill',
    description: 'Your bill for October',
    pdfs: [{ fileName: 'bill.pdf', content: PDF, contentType: 'application/pdf' }],
    formToken,
  };
}

const deps = (now: number) => ({ processingAddress: 'letters@intake.example', hostname: 'mx.intake.example', clock: () => now });

describe('an upload as a message', () => {
  const token = `${(1_795_800_000_000).toString(36)}.AbCdEfGhIjKlMnOpQrStUvWx`;

  it('is the same bytes when the same form is sent again later (a retry is the same intake)', async () => {
    const first = await composeUpload(upload(token), deps(1_795_800_100_000));
    const again = await composeUpload(upload(token), deps(1_795_800_900_000));
    expect(again.equals(first)).toBe(true);
    expect(first.toString('latin1')).toMatch(/^Date: .*2026/m);
  });

  it('differs for another form', async () => {
    const other = `${(1_795_800_000_000).toString(36)}.ZyXwVuTsRqPoNmLkJiHgFeDc`;
    const a = await composeUpload(upload(token), deps(1_795_800_100_000));
    const b = await composeUpload(upload(other), deps(1_795_800_100_000));
    expect(b.equals(a)).toBe(false);
  });

  it('reads the time a form token was made, and nothing from another shape', () => {
    expect(issuedAtOf(token)).toBe(1_795_800_000_000);
    expect(issuedAtOf('no-dot-here')).toBeUndefined();
  });
});
