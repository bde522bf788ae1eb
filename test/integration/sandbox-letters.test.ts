import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACME, call, field, GLOBEX, letterBody, login, pdfBase64, sandboxEachTest, type TestSandbox } from '../helpers/sandbox.js';

describe('sandbox letters', () => {
  let sandbox: TestSandbox;
  let acme: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    acme = loggedIn;
  });

  const saveDraft = (session: string, body: unknown) => call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body });
  const submit = (session: string, body: unknown) => call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body });
  const get = (session: string, id: unknown) => call(sandbox.url, 'GET', `/api/v1/letters/${String(id)}`, { session });
  const draftId = async (): Promise<unknown> => field((await saveDraft(acme, letterBody())).json, 'id');

  it('saves a draft and answers its id, status, title and sender', async () => {
    const answer = await saveDraft(acme, letterBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.any(String),
      status: 'Draft',
      title: 'Your November invoice',
      sender: { companyNameEn: ACME.companyNameEn },
    });
  });

  it('shows a saved letter with its content, times and document metadata', async () => {
    const id = await draftId();
    const answer = await get(acme, id);
    const pdf = Buffer.from(pdfBase64('invoice'), 'base64');
    expect(answer.json).toEqual({
      id,
      status: 'Draft',
      title: 'Your November invoice',
      sender: { companyNameEn: ACME.companyNameEn },
      description: 'Please find the invoice attached.',
      genderTargeting: 'All',
      createdUtc: new Date(sandbox.clock.now()).toISOString(),
      updatedUtc: new Date(sandbox.clock.now()).toISOString(),
      submittedUtc: null,
      parts: [
        {
          id: expect.any(String),
          fileName: 'invoice.pdf',
          mimeType: 'application/pdf',
          sizeBytes: pdf.length,
          sha256: createHash('sha256').update(pdf).digest('hex'),
        },
      ],
    });
  });

  it('submits a draft by id into PendingApproval', async () => {
    const id = await draftId();
    sandbox.clock.advance(5000);
    const answer = await submit(acme, letterBody({ id }));
    expect(field(answer.json, 'status')).toBe('PendingApproval');
    expect(field((await get(acme, id)).json, 'submittedUtc')).toBe(new Date(sandbox.clock.now()).toISOString());
  });

  it('submits a new letter directly into PendingApproval', async () => {
    const answer = await submit(acme, letterBody());
    expect(answer.status).toBe(200);
    expect(field(answer.json, 'status')).toBe('PendingApproval');
  });

  it('refuses to submit a letter that is already submitted, saying so', async () => {
    const id = await draftId();
    await submit(acme, letterBody({ id }));
    const again = await submit(acme, letterBody({ id }));
    expect({ status: again.status, errorCode: field(again.json, 'errorCode') }).toEqual({ status: 400, errorCode: 'InvalidData' });
    expect(field(again.json, 'message')).toMatch(/already submitted/);
  });

  it('refuses to update a letter that is already submitted', async () => {
    const id = await draftId();
    await submit(acme, letterBody({ id }));
    const update = await saveDraft(acme, letterBody({ id, title: 'Changed' }));
    expect(update.status).toBe(400);
    expect(field((await get(acme, id)).json, 'title')).toBe('Your November invoice');
  });

  it('refuses to submit a letter without documents', async () => {
    const answer = await submit(acme, letterBody({ parts: [] }));
    expect(answer.status).toBe(400);
    expect(field(answer.json, 'message')).toMatch(/at least one document/);
  });

  it('hides a letter from another sender as if it did not exist', async () => {
    const id = await draftId();
    const globex = await login(sandbox.url, GLOBEX);
    const answer = await get(globex, id);
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 404, errorCode: 'EntityNotFound' });
  });

  it('refuses to let another sender submit a letter', async () => {
    const id = await draftId();
    const globex = await login(sandbox.url, GLOBEX);
    expect((await submit(globex, letterBody({ id }))).status).toBe(404);
    expect(field((await get(acme, id)).json, 'status')).toBe('Draft');
  });

  it("lists only the caller's letters", async () => {
    await draftId();
    const globex = await login(sandbox.url, GLOBEX);
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters', { session: globex });
    expect(answer.json).toEqual({ items: [], page: 1, pageSize: 20, total: 0 });
  });

  it('pages the list oldest first', async () => {
    for (const title of ['one', 'two', 'three']) await saveDraft(acme, letterBody({ title }));
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters?page=2&pageSize=2', { session: acme });
    expect({ ...Object(answer.json), items: undefined }).toEqual({ page: 2, pageSize: 2, total: 3, items: undefined });
    const items = field(answer.json, 'items');
    expect(Array.isArray(items) ? items.map((i) => field(i, 'title')) : items).toEqual(['three']);
  });

  it('filters the list by status', async () => {
    await saveDraft(acme, letterBody({ title: 'draft' }));
    await submit(acme, letterBody({ title: 'submitted' }));
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters?status=PendingApproval', { session: acme });
    const items = field(answer.json, 'items');
    expect(Array.isArray(items) ? items.map((i) => field(i, 'title')) : items).toEqual(['submitted']);
  });

  it('refuses an unknown status filter', async () => {
    expect((await call(sandbox.url, 'GET', '/api/v1/letters?status=Lost', { session: acme })).status).toBe(400);
  });

  it('accepts a 10 MiB PDF in base64', async () => {
    const pdf = Buffer.alloc(10 * 1024 * 1024, 0x20);
    pdf.write('%PDF-1.7\n');
    const answer = await submit(
      acme,
      letterBody({ parts: [{ fileName: 'big.pdf', mimeType: 'application/pdf', base64Data: pdf.toString('base64') }] }),
    );
    expect(answer.status).toBe(200);
    const parts = field((await get(acme, field(answer.json, 'id'))).json, 'parts');
    expect(Array.isArray(parts) ? field(parts[0], 'sizeBytes') : parts).toBe(10 * 1024 * 1024);
  });
});

describe('sandbox letter validation', () => {
  let sandbox: TestSandbox;
  let acme: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    acme = loggedIn;
  });

  const upload = (overrides: Record<string, unknown>) => ({
    fileName: 'a.pdf',
    mimeType: 'application/pdf',
    base64Data: pdfBase64('a'),
    ...overrides,
  });

  it.each([
    ['a missing title', { title: undefined }, /title/],
    ['a blank title', { title: '   ' }, /title: must not be empty/],
    ['a description that is not text', { description: 42 }, /description/],
    ['an unknown genderTargeting', { genderTargeting: 'Everyone' }, /genderTargeting/],
    ['a field the contract does not have', { priority: 'high' }, /priority/],
    ['a document that is not a PDF', { parts: [upload({ mimeType: 'image/png' })] }, /parts\.0\.mimeType: must be application\/pdf/],
    ['base64 with a line break', { parts: [upload({ base64Data: `${pdfBase64('a')}\n` })] }, /parts\.0\.base64Data/],
    ['base64 with a wrong alphabet', { parts: [upload({ base64Data: 'JVBERi0_' })] }, /parts\.0\.base64Data/],
    ['base64 without padding', { parts: [upload({ base64Data: 'JVBERi0' })] }, /parts\.0\.base64Data/],
    ['a new document without a file name', { parts: [upload({ fileName: undefined })] }, /parts\.0: a new document needs fileName/],
    ['parts that are not a list', { parts: 'invoice.pdf' }, /parts/],
  ])('refuses %s with a message naming the field', async (_case, overrides, message) => {
    const answer = await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session: acme, body: letterBody(overrides) });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 400, errorCode: 'InvalidData' });
    expect(field(answer.json, 'message')).toMatch(message);
  });
});
