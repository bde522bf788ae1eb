// POST /api/v1/invoices and GET /api/v1/invoices/{id} against the sandbox over HTTP, as the
// contract writes an invoice (§2.5): its request fields stored as sent, its response fields each
// present (null where the request gave nothing), and the choices where it says "not shown".
import { describe, expect, it } from 'vitest';
import { END_USER_SERVICE_ID, receiptBody, samplePart } from '../helpers/billing-samples.js';
import { ACME, type ApiAnswer, call, field, GLOBEX, login, sandboxEachTest, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function invoiceBody(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    endUserServiceId: END_USER_SERVICE_ID,
    endUserIdpId: 'idp-subject-1',
    generatedAtUtc: '2026-11-01T08:00:00Z',
    amount: 135.4,
    currency: 'Aed',
    dueDateUtc: '2026-12-01T00:00:00Z',
    payable: true,
    reference: 'INV-2026-11',
    parts: [samplePart('pdf', 'invoice.pdf')],
    ...overrides,
  };
}

describe('sandbox invoices', () => {
  let sandbox: TestSandbox;
  let session: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    session = loggedIn;
  });

  const post = (body: unknown): Promise<ApiAnswer> => call(sandbox.url, 'POST', '/api/v1/invoices', { session, body });
  const outcome = (answer: ApiAnswer) => ({ status: answer.status, errorCode: field(answer.json, 'errorCode') });

  it("answers an invoice with exactly the contract's response fields, each as sent", async () => {
    const answer = await post(invoiceBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      endUserIdpId: 'idp-subject-1',
      senderId: ACME.senderId,
      generatedAtUtc: '2026-11-01T08:00:00Z',
      sentUtc: '2026-11-02T09:00:00.000Z',
      amount: 135.4,
      currency: 'Aed',
      dueDateUtc: '2026-12-01T00:00:00Z',
      payable: true,
      reference: 'INV-2026-11',
    });
  });

  it('accepts an invoice with an end user alone, answering null for what it was not given and Aed', async () => {
    const answer = await post({ endUserEmiratesId: '784-1985-7654321-2' });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      endUserIdpId: null,
      senderId: ACME.senderId,
      generatedAtUtc: null,
      sentUtc: '2026-11-02T09:00:00.000Z',
      amount: null,
      currency: 'Aed',
      dueDateUtc: null,
      payable: null,
      reference: null,
    });
  });

  it('shows the invoice again by its id with the same body', async () => {
    const created = await post(invoiceBody());
    sandbox.clock.advance(10 * 60 * 1000);
    const shown = await call(sandbox.url, 'GET', `/api/v1/invoices/${String(field(created.json, 'id'))}`, { session });
    expect({ status: shown.status, json: shown.json }).toEqual({ status: 200, json: created.json });
  });

  it.each([
    ['no end-user identifier', { endUserServiceId: undefined, endUserIdpId: undefined }],
    ['line items (an invoice has none in the contract)', { lineItems: [{ description: 'Electricity' }] }],
    ['an amount written as a string', { amount: '135.40' }],
    ['a due date without a time', { dueDateUtc: '2026-12-01' }],
    ['payable written as a string', { payable: 'yes' }],
    ['a part that is not a document', { parts: [samplePart('text', 'invoice.pdf')] }],
  ])('refuses %s with 400 InvalidData', async (_what, overrides) => {
    expect(outcome(await post(invoiceBody(overrides)))).toEqual({ status: 400, errorCode: 'InvalidData' });
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

  it('answers the same invoice again under its reference, refuses other content under it, and makes a new one without one', async () => {
    const first = await post(invoiceBody());
    expect(field((await post(invoiceBody())).json, 'id')).toBe(field(first.json, 'id'));
    expect(outcome(await post(invoiceBody({ amount: 1 })))).toEqual({ status: 400, errorCode: 'InvalidData' });
    const unreferenced = invoiceBody({ reference: undefined });
    expect(field((await post(unreferenced)).json, 'id')).not.toBe(field((await post(unreferenced)).json, 'id'));
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
