// POST /api/v1/invoices and GET /api/v1/invoices/{id} against the sandbox over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { receiptBody, samplePart } from '../helpers/billing-samples.js';
import { ACME, type ApiAnswer, call, field, GLOBEX, login, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function invoiceBody(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    emiratesId: '784-1985-7654321-2',
    reference: 'INV-2026-11',
    lineItems: [
      { description: 'Electricity', unitPrice: '120.40' },
      { description: 'Meter rent', unitPrice: 5, quantity: 3 },
    ],
    dueDate: '2026-12-01',
    ...overrides,
  };
}

describe('sandbox invoices', () => {
  let sandbox: TestSandbox;
  let session: string;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    session = await login(sandbox.url, ACME);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const post = (body: unknown): Promise<ApiAnswer> => call(sandbox.url, 'POST', '/api/v1/invoices', { session, body });
  const outcome = (answer: ApiAnswer) => ({ status: answer.status, errorCode: field(answer.json, 'errorCode') });

  it('answers an invoice with every field', async () => {
    const answer = await post(invoiceBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      reference: 'INV-2026-11',
      endUserId: expect.stringMatching(UUID),
      senderId: ACME.senderId,
      createdAtUtc: '2026-11-02T09:00:00.000Z',
      sender: { companyNameEn: ACME.companyNameEn },
      currency: 'Aed',
      lineItems: [
        { description: 'Electricity', quantity: 1, unitPrice: 120.4, amount: 120.4 },
        { description: 'Meter rent', quantity: 3, unitPrice: 5, amount: 15 },
      ],
      totalAmount: 135.4,
      dueDate: '2026-12-01',
      documentUrls: [],
    });
  });

  it('shows the invoice again by its id, with fresh document URLs', async () => {
    const created = await post(invoiceBody({ parts: [samplePart('pdf', 'invoice.pdf')] }));
    sandbox.clock.advance(10 * 60 * 1000);
    const shown = await call(sandbox.url, 'GET', `/api/v1/invoices/${String(field(created.json, 'id'))}`, { session });
    expect(shown.status).toBe(200);
    for (const name of [
      'id',
      'reference',
      'endUserId',
      'senderId',
      'createdAtUtc',
      'sender',
      'currency',
      'lineItems',
      'totalAmount',
      'dueDate',
    ]) {
      expect(field(shown.json, name)).toEqual(field(created.json, name));
    }
    const urls = (answer: ApiAnswer): unknown[] => {
      const list = field(answer.json, 'documentUrls');
      return Array.isArray(list) ? list : [];
    };
    const [createdLink] = urls(created);
    const [shownLink] = urls(shown);
    expect(shownLink).toEqual({
      fileName: 'invoice.pdf',
      mimeType: 'application/pdf',
      url: expect.any(String),
      expiresAt: '2026-11-02T10:10:00.000Z',
    });
    expect(field(shownLink, 'url')).not.toBe(field(createdLink, 'url'));
  });

  it('refuses an invoice without line items', async () => {
    const answer = await post(invoiceBody({ lineItems: undefined, parts: [samplePart('pdf', 'i.pdf')] }));
    expect(outcome(answer)).toEqual({ status: 400, errorCode: 'InvalidData' });
    expect(field(answer.json, 'message')).toMatch(/lineItems: is required/);
  });

  it('refuses a due date that is not a calendar date', async () => {
    expect(outcome(await post(invoiceBody({ dueDate: '2026-02-30' })))).toEqual({ status: 400, errorCode: 'InvalidData' });
  });

  it("answers another sender's invoice with 404 EntityNotFound", async () => {
    const id = String(field((await post(invoiceBody())).json, 'id'));
    expect(id).toMatch(UUID);
    const globex = await login(sandbox.url, GLOBEX);
    expect(outcome(await call(sandbox.url, 'GET', `/api/v1/invoices/${id}`, { session: globex }))).toEqual({
      status: 404,
      errorCode: 'EntityNotFound',
    });
  });

  it('answers a receipt id asked for as an invoice with 404 EntityNotFound', async () => {
    const receipt = await call(sandbox.url, 'POST', '/api/v1/receipts', { session, body: receiptBody() });
    expect(receipt.status).toBe(200);
    const answer = await call(sandbox.url, 'GET', `/api/v1/invoices/${String(field(receipt.json, 'id'))}`, { session });
    expect(outcome(answer)).toEqual({ status: 404, errorCode: 'EntityNotFound' });
  });

  it('keeps references apart per sender: another sender may use the same one', async () => {
    const mine = await post(invoiceBody());
    const globex = await login(sandbox.url, GLOBEX);
    const theirs = await call(sandbox.url, 'POST', '/api/v1/invoices', { session: globex, body: invoiceBody() });
    expect(theirs.status).toBe(200);
    expect(field(theirs.json, 'id')).not.toBe(field(mine.json, 'id'));
  });

  it('answers GET without a session 401 InvalidSession', async () => {
    const id = String(field((await post(invoiceBody())).json, 'id'));
    expect(outcome(await call(sandbox.url, 'GET', `/api/v1/invoices/${id}`))).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });
});
