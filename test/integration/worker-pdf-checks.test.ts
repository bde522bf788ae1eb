// The PDF checks on the whole path: a letter over SMTP → Redis → worker (checker threads) →
// sandbox API. A PDF that breaks a rule ends the intake rejected with its reason and no letter;
// an accepted PDF's pages, version and producer are in the intake record. PDF_CHECKS=off
// opens nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { ACTIVE_SAMPLES, chromiumLetter, letterPdf, permissionsOnly, SAMPLE_PRODUCER, withUserPassword } from '../helpers/pdf-samples.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

async function deliver(gateway: TestGateway, title: string, pdf: Buffer): Promise<string> {
  const replies = await sendOnce(gateway.port, {
    from: 'letters@acme.example',
    to: [PROCESSING_ADDRESS],
    raw: await signedLetter({ title, pdf }),
    helo: 'mta.acme.example',
  });
  return intakeIdOf(replies.data?.text ?? '');
}

const lettersTitled = (gateway: TestGateway, title: string) => (gateway.sandbox?.store.allLetters() ?? []).filter((l) => l.title === title);

describe('with PDF_CHECKS=strict (the default)', () => {
  let gateway: TestGateway;
  let chromium: Buffer;
  beforeAll(async () => {
    [gateway, chromium] = await Promise.all([startTestGateway({ worker: true, env: { PDF_CHECK_TIMEOUT_MS: '30000' } }), chromiumLetter()]);
  }, 120_000);
  afterAll(async () => {
    await gateway.close();
  });

  it('a permissions-only encrypted Chromium letter becomes a letter, its pages, version and producer recorded', async () => {
    const pdf = await permissionsOnly(chromium);
    const record = await gateway.settled(await deliver(gateway, 'Statement, permissions only', pdf), 60_000);
    expect(record.state).toBe('submitted');
    expect(record.pdfs).toEqual([
      {
        fileName: 'letter.pdf',
        bytes: pdf.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        pages: 2,
        version: pdf.subarray(5, 8).toString('latin1'),
        producer: expect.stringMatching(/Skia/),
      },
    ]);
    expect(lettersTitled(gateway, 'Statement, permissions only')).toHaveLength(1);
  }, 90_000);

  it('records the producer a PDF names', async () => {
    const record = await gateway.settled(await deliver(gateway, 'Three-page statement', await letterPdf(3)), 60_000);
    expect(record.pdfs?.[0]).toMatchObject({ pages: 3, version: '1.7', producer: SAMPLE_PRODUCER });
  }, 90_000);

  const rejected: readonly [string, () => Promise<Buffer>, string, RegExp][] = [
    [
      'a PDF that needs a password',
      async () => withUserPassword(await letterPdf()),
      'PdfPasswordProtected',
      /"letter\.pdf" needs a password/,
    ],
    ['a truncated PDF', async () => (await letterPdf(3)).subarray(0, 900), 'PdfDamaged', /"letter\.pdf" cannot be read as a PDF/],
    ['a PDF with JavaScript on open', () => ACTIVE_SAMPLES[0]?.build() ?? letterPdf(), 'PdfActiveContent', /JavaScript \(document/],
  ];
  it.each(rejected)(
    '%s is rejected with its reason, and no letter is made',
    async (title, build, reasonCode, sentence) => {
      const record = await gateway.settled(await deliver(gateway, title, await build()), 60_000);
      expect(record).toMatchObject({ state: 'rejected', reasonCode, reason: expect.stringMatching(sentence) });
      expect(record.pdfs?.[0]?.fileName).toBe('letter.pdf');
      expect(lettersTitled(gateway, title)).toHaveLength(0);
    },
    90_000,
  );
});

describe('with PDF_CHECKS=off', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ worker: true, env: { PDF_CHECKS: 'off' } });
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  it('a PDF that needs a password becomes a letter, and nothing about its inside is recorded', async () => {
    const record = await gateway.settled(await deliver(gateway, 'Locked, checks off', await withUserPassword(await letterPdf())), 60_000);
    expect(record.state).toBe('submitted');
    expect(record.pdfs?.[0]).not.toHaveProperty('pages');
    expect(lettersTitled(gateway, 'Locked, checks off')).toHaveLength(1);
  }, 90_000);
});
