// The deep PDF checks over real files in real checker threads: PDFs from real producers
// (Chromium's --print-to-pdf, pdf-lib, qpdf's encryption, linearization and object streams) are
// accepted with their pages, version and producer; each rule is triggered by its own case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPdfs } from '../../src/pdf/check-pdfs.js';
import { createPdfChecker, type PdfChecker } from '../../src/pdf/checker-pool.js';
import type { PdfFacts } from '../../src/pdf/facts.js';
import { judgePdf, type PdfVerdict } from '../../src/pdf/judge.js';
import type { Sender } from '../../src/senders/directory.js';
import { pdfWith } from '../helpers/pdf-bombs.js';
import {
  ACTIVE_SAMPLES,
  chromiumLetter,
  formPdf,
  letterDoc,
  letterPdf,
  permissionsOnly,
  qpdf,
  SAMPLE_PRODUCER,
  save,
  withUserPassword,
} from '../helpers/pdf-samples.js';

let checker: PdfChecker;
let chromium: Buffer;

beforeAll(async () => {
  checker = createPdfChecker({ threads: 2, timeoutMs: 30_000, memoryMb: 512 });
  [chromium] = await Promise.all([chromiumLetter(), checker.inspect(await letterPdf())]);
}, 120_000);
afterAll(async () => {
  await checker.close();
});

async function verdictOf(pdf: Buffer, allowForms = false): Promise<PdfVerdict> {
  return judgePdf(await checker.inspect(pdf), { allowForms }, '"letter.pdf"');
}

const opened = (facts: PdfFacts) => (facts.kind === 'opened' ? facts : undefined);

describe('PDFs from real producers are accepted', () => {
  it('a letter Chromium printed with --print-to-pdf opens with its two pages, version and producer', async () => {
    const facts = opened(await checker.inspect(chromium));
    expect(facts).toMatchObject({ pages: 2, version: chromium.subarray(5, 8).toString('latin1'), encrypted: false });
    expect(facts?.producer).toMatch(/Skia/);
    expect(await verdictOf(chromium)).toEqual({ ok: true });
  });

  const variants: readonly [string, () => Promise<Buffer>][] = [
    ['pdf-lib, three pages', () => letterPdf(3)],
    ['pdf-lib with object streams', async () => save(await letterDoc(2), true)],
    ['Chromium, linearized by qpdf', () => qpdf(chromium, ['--linearize'])],
    ['Chromium, rewritten with object streams by qpdf', () => qpdf(chromium, ['--object-streams=generate'])],
    ['Chromium, encrypted with an empty user password (AES-256; no printing, no copying)', () => permissionsOnly(chromium)],
    ['pdf-lib, empty user password and object streams', async () => permissionsOnly(await letterPdf(), ['--object-streams=generate'])],
  ];
  it.each(variants)('%s is accepted', async (_name, build) => {
    expect(await verdictOf(await build())).toEqual({ ok: true });
  });

  it('an encrypted file that opens without a password is read, not refused', async () => {
    const facts = opened(await checker.inspect(await permissionsOnly(chromium)));
    expect(facts).toMatchObject({ encrypted: true, pages: 2 });
  });
});

describe('each rule is triggered by its own case', () => {
  it('a PDF that needs a user password is PdfPasswordProtected', async () => {
    const verdict = await verdictOf(await withUserPassword(chromium));
    expect(verdict).toMatchObject({
      ok: false,
      reasonCode: 'PdfPasswordProtected',
      reason: expect.stringMatching(/"letter\.pdf" needs a password/),
    });
  });

  it('a PDF cut off after its first 40% is PdfDamaged', async () => {
    const whole = await letterPdf(3);
    const verdict = await verdictOf(whole.subarray(0, Math.floor(whole.length * 0.4)));
    expect(verdict).toMatchObject({ ok: false, reasonCode: 'PdfDamaged' });
  });

  it('a file that starts with %PDF- and then is not a PDF is PdfDamaged', async () => {
    const verdict = await verdictOf(Buffer.from('%PDF-1.7\nthis is a text file with a PDF header and nothing else\n'));
    expect(verdict).toMatchObject({ ok: false, reasonCode: 'PdfDamaged', reason: expect.stringMatching(/cannot be read as a PDF/) });
  });

  it('a PDF whose page tree holds no pages is PdfDamaged', async () => {
    const empty = pdfWith(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
    expect(await verdictOf(empty)).toMatchObject({ ok: false, reasonCode: 'PdfDamaged' });
  });

  it('a page tree that points at an object that is not there is PdfDamaged', async () => {
    const broken = pdfWith([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 9 0 R] /Count 2 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    ]);
    expect(await verdictOf(broken)).toMatchObject({ ok: false, reasonCode: 'PdfDamaged' });
  });

  it.each(ACTIVE_SAMPLES.map((s) => [s.name, s] as const))('%s is PdfActiveContent, and the sentence names it', async (_name, sample) => {
    const verdict = await verdictOf(await sample.build());
    expect(verdict).toMatchObject({ ok: false, reasonCode: 'PdfActiveContent', reason: expect.stringMatching(sample.names) });
  });

  it('a Launch action in the catalog of a permissions-only encrypted file is found', async () => {
    const launch = ACTIVE_SAMPLES.find((s) => s.name.startsWith('a Launch action as the document open action'));
    const pdf = await permissionsOnly(await (launch?.build() ?? letterPdf()));
    expect(await verdictOf(pdf)).toMatchObject({
      ok: false,
      reasonCode: 'PdfActiveContent',
      reason: expect.stringMatching(/Launch action/),
    });
  });

  it("a page's JavaScript inside encrypted object streams is found (pdf.js decrypts)", async () => {
    const js = ACTIVE_SAMPLES.find((s) => s.name === 'JavaScript on a page open action');
    const pdf = await permissionsOnly(await (js?.build() ?? letterPdf()), ['--object-streams=generate']);
    expect(await verdictOf(pdf)).toMatchObject({ ok: false, reasonCode: 'PdfActiveContent', reason: expect.stringMatching(/JavaScript/) });
  });

  it("a Launch link inside encrypted object streams is out of the walk's reach, and the facts say the walk was incomplete", async () => {
    // The known limit (docs/sender-policy.md): pdf-lib cannot decrypt object streams, and pdf.js reports neither
    // /Launch nor a link's JavaScript. The file is accepted; the record says what was not checked.
    const launch = ACTIVE_SAMPLES.find((s) => s.name.startsWith('a Launch action behind a link'));
    const pdf = await permissionsOnly(await (launch?.build() ?? letterPdf()), ['--object-streams=generate']);
    expect(opened(await checker.inspect(pdf))).toMatchObject({ encrypted: true, structureWalked: false, launch: [] });
    const plain = opened(await checker.inspect(await permissionsOnly(await letterPdf())));
    expect(plain).toMatchObject({ encrypted: true, structureWalked: true });
  });

  it('form fields are active content, unless the sender is allowed forms', async () => {
    const pdf = await formPdf();
    expect(await verdictOf(pdf)).toMatchObject({
      ok: false,
      reasonCode: 'PdfActiveContent',
      reason: expect.stringMatching(/interactive form fields/),
    });
    expect(await verdictOf(pdf, true)).toEqual({ ok: true });
  });

  it('JavaScript stays refused for a sender allowed forms', async () => {
    const js = ACTIVE_SAMPLES[0];
    expect(await verdictOf(await (js?.build() ?? letterPdf()), true)).toMatchObject({ ok: false, reasonCode: 'PdfActiveContent' });
  });
});

describe('what the intake record gets', () => {
  const sender: Sender = {
    senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
    companyNameEn: 'Acme',
    addresses: ['letters@acme.example'],
    apiClientId: 'acme',
    apiClientSecret: 'x',
    allowedIps: undefined,
    allowPdfForms: false,
    notify: [],
  };
  const doc = (fileName: string, content: Buffer) => ({ fileName, content, sha256: '' });

  it('pages, version and producer of each PDF, in order', async () => {
    const outcome = await checkPdfs([doc('a.pdf', await letterPdf(3)), doc('b.pdf', chromium)], sender, checker);
    expect(outcome.ok && outcome.details).toEqual([
      { pages: 3, version: '1.7', producer: SAMPLE_PRODUCER },
      { pages: 2, version: chromium.subarray(5, 8).toString('latin1'), producer: expect.stringMatching(/Skia/) },
    ]);
  });

  it('the first PDF that fails rejects the intake, naming its file', async () => {
    const outcome = await checkPdfs([doc('fine.pdf', chromium), doc('locked.pdf', await withUserPassword(chromium))], sender, checker);
    expect(outcome).toMatchObject({ ok: false, reasonCode: 'PdfPasswordProtected', reason: expect.stringContaining('"locked.pdf"') });
  });

  it('with the checks off nothing is opened and nothing is recorded', async () => {
    const outcome = await checkPdfs([doc('locked.pdf', await withUserPassword(chromium))], sender, undefined);
    expect(outcome).toEqual({ ok: true, details: [{}] });
  });
});
