import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Base64Data } from '../../src/net/base64-data.js';
import type { SenderSession } from '../../src/sender-api/sender-session.js';
import type { LetterInput } from '../../src/sender-api/wire.js';
import { ACME, GLOBEX, pdfBase64, sandboxClient, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const letter: LetterInput = {
  title: 'Your November invoice',
  description: 'Please find the invoice attached.',
  genderTargeting: 'All',
  parts: [{ fileName: 'invoice.pdf', mimeType: 'application/pdf', base64Data: pdfBase64('invoice') }],
};

describe('Sender API client letters', () => {
  let sandbox: TestSandbox;
  let acme: SenderSession;
  let globex: SenderSession;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    const api = sandboxClient(sandbox);
    acme = api.as(ACME);
    globex = api.as(GLOBEX);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('saves a draft and submits it by id into PendingApproval', async () => {
    const draft = await acme.saveDraft(letter);
    const submitted = await acme.submit({ ...letter, id: draft.id });
    expect([draft.status, submitted.status]).toEqual(['Draft', 'PendingApproval']);
  });

  it('reads a letter back with its document metadata', async () => {
    const { id } = await acme.saveDraft(letter);
    await acme.submit({ ...letter, id });
    const detail = await acme.getLetter(id);
    expect({ status: detail.status, files: (detail.parts ?? []).map((p) => p.fileName), submitted: detail.submittedUtc }).toEqual({
      status: 'PendingApproval',
      files: ['invoice.pdf'],
      submitted: new Date(sandbox.clock.now()).toISOString(),
    });
  });

  it('updates a draft, keeping a document by id', async () => {
    const { id } = await acme.saveDraft(letter);
    const [kept] = (await acme.getLetter(id)).parts ?? [];
    await acme.saveDraft({ ...letter, id, title: 'Corrected', parts: kept === undefined ? [] : [{ id: kept.id }] });
    const after = await acme.getLetter(id);
    expect({ title: after.title, parts: (after.parts ?? []).map((p) => p.id) }).toEqual({ title: 'Corrected', parts: [kept?.id] });
  });

  it('lists letters filtered by status, one page at a time', async () => {
    await acme.saveDraft(letter);
    await acme.submit(letter);
    await acme.submit(letter);
    const page = await acme.listLetters({ status: 'PendingApproval', page: 2, pageSize: 1 });
    expect({ items: page?.items.length, status: page?.items[0]?.status, total: page?.total, page: page?.page }).toEqual({
      items: 1,
      status: 'PendingApproval',
      total: 2,
      page: 2,
    });
  });

  it('fails permanently, with the API message, when the letter is already submitted', async () => {
    const { id } = await acme.saveDraft(letter);
    await acme.submit({ ...letter, id });
    await expect(acme.submit({ ...letter, id })).rejects.toMatchObject({
      kind: 'permanent',
      statusCode: 400,
      errorCode: 'InvalidData',
      apiMessage: expect.stringMatching(/already submitted/),
      endpoint: 'POST /api/v1/letters/submit',
    });
  });

  it("fails permanently with EntityNotFound for another sender's letter", async () => {
    const { id } = await acme.saveDraft(letter);
    await expect(globex.getLetter(id)).rejects.toMatchObject({
      kind: 'permanent',
      errorCode: 'EntityNotFound',
      endpoint: 'GET /api/v1/letters/{id}',
    });
  });
});

// A document large enough to go as a stream of base64 pieces (json-text.ts), through the client's
// own fetch and through the global fetch (which reads the same body as a web stream).
describe.each([
  ['the default fetch', undefined],
  ['the global fetch', ((input, init) => fetch(input, init)) satisfies typeof fetch],
])('Sender API client letters with a large document, through %s', (_name, fetchOfTest) => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('submits the document whole: the API keeps its size and SHA-256', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300_001), Buffer.from('\n%%EOF\n')]);
    const api = sandboxClient(sandbox, fetchOfTest === undefined ? {} : { fetch: fetchOfTest });
    const acme = api.as(ACME);
    const { id } = await acme.saveDraft({
      ...letter,
      title: 'Grosse Rechnung “März”',
      parts: [{ fileName: 'big.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdf) }],
    });
    const detail = await acme.getLetter(id);
    expect({ title: detail.title, parts: (detail.parts ?? []).map((p) => [p.fileName, p.sizeBytes, p.sha256]) }).toEqual({
      title: 'Grosse Rechnung “März”',
      parts: [['big.pdf', pdf.length, createHash('sha256').update(pdf).digest('hex')]],
    });
  });
});
