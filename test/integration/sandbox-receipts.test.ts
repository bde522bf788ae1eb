// POST /api/v1/receipts against the sandbox over HTTP: the fields, the end-user rules, document
// types by their bytes, amounts by value, the duplicate reference, and document URLs that serve
// their document until they expire on the sandbox's clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { receiptBody, SAMPLE_BYTES, samplePart } from '../helpers/billing-samples.js';
import { ACME, type ApiAnswer, call, field, login, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOUR_MS = 60 * 60 * 1000;

describe('sandbox receipts', () => {
  let sandbox: TestSandbox;
  let session: string;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    session = await login(sandbox.url, ACME);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const post = (body: unknown): Promise<ApiAnswer> => call(sandbox.url, 'POST', '/api/v1/receipts', { session, body });
  const refusal = (answer: ApiAnswer) => ({
    status: answer.status,
    errorCode: field(answer.json, 'errorCode'),
    message: field(answer.json, 'message'),
  });
  const documentUrls = (answer: ApiAnswer): Array<Record<string, unknown>> => {
    const urls = field(answer.json, 'documentUrls');
    return Array.isArray(urls) ? urls.filter((u): u is Record<string, unknown> => typeof u === 'object' && u !== null) : [];
  };

  it('answers a receipt with line items with every field, the defaults applied', async () => {
    const answer = await post(receiptBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      reference: null,
      endUserId: expect.stringMatching(UUID),
      senderId: ACME.senderId,
      createdAtUtc: '2026-11-02T09:00:00.000Z',
      sender: { companyNameEn: ACME.companyNameEn },
      currency: 'Aed',
      lineItems: [{ description: 'Water, November', quantity: 2, unitPrice: 10.5, amount: 21 }],
      totalAmount: 21,
      documentUrls: [],
    });
  });

  it('takes a line item without quantity as one', async () => {
    const answer = await post(receiptBody({ lineItems: [{ description: 'Meter reading', unitPrice: '7.25' }] }));
    expect(field(answer.json, 'lineItems')).toEqual([{ description: 'Meter reading', quantity: 1, unitPrice: 7.25, amount: 7.25 }]);
  });

  it('keeps a currency it is given', async () => {
    expect(field((await post(receiptBody({ currency: 'Usd' }))).json, 'currency')).toBe('Usd');
  });

  it.each([
    ['pdf', 'receipt.pdf', 'application/pdf'],
    ['jpeg', 'receipt.jpg', 'image/jpeg'],
    ['jpeg', 'receipt.jpeg', 'image/jpeg'],
    ['png', 'receipt.png', 'image/png'],
    ['webp', 'receipt.webp', 'image/webp'],
  ] as const)('accepts a %s part (%s) and serves it back byte for byte at its URL', async (kind, fileName, mimeType) => {
    const answer = await post({ email: 'resident@example.ae', parts: [samplePart(kind, fileName)] });
    expect(answer.status).toBe(200);
    const [link] = documentUrls(answer);
    expect(link).toEqual({
      fileName,
      mimeType,
      url: expect.stringMatching(new RegExp(`^${sandbox.url}/sandbox/documents/[0-9a-f-]{36}$`)),
      expiresAt: '2026-11-02T10:00:00.000Z',
    });
    const served = await fetch(String(link?.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(mimeType);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(SAMPLE_BYTES[kind]);
  });

  it('judges a part by its bytes: a PNG named .pdf is a PNG', async () => {
    const answer = await post({ email: 'resident@example.ae', parts: [samplePart('png', 'scan.pdf')] });
    expect(documentUrls(answer)[0]?.mimeType).toBe('image/png');
  });

  it('refuses a part named .pdf whose bytes are text', async () => {
    expect(refusal(await post({ email: 'resident@example.ae', parts: [samplePart('text', 'receipt.pdf')] }))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('parts.0.base64Data'),
    });
  });

  it('refuses a part whose mimeType disagrees with its bytes', async () => {
    const part = { ...samplePart('jpeg', 'receipt.jpg'), mimeType: 'image/png' };
    expect(refusal(await post({ email: 'resident@example.ae', parts: [part] }))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('says image/png but the bytes are image/jpeg'),
    });
  });

  it('serves a document until its URL expires on the sandbox clock, then answers 404 EntityNotFound', async () => {
    const [link] = documentUrls(await post({ email: 'resident@example.ae', parts: [samplePart('pdf', 'r.pdf')] }));
    const url = String(link?.url);
    sandbox.clock.advance(HOUR_MS - 1);
    expect((await fetch(url)).status).toBe(200);
    sandbox.clock.advance(1);
    const expired = await fetch(url);
    expect({ status: expired.status, errorCode: field(await expired.json(), 'errorCode') }).toEqual({
      status: 404,
      errorCode: 'EntityNotFound',
    });
  });

  it('accepts line items and parts together', async () => {
    const answer = await post(receiptBody({ parts: [samplePart('pdf', 'r.pdf')] }));
    expect({ status: answer.status, documents: documentUrls(answer).length, total: field(answer.json, 'totalAmount') }).toEqual({
      status: 200,
      documents: 1,
      total: 21,
    });
  });

  it('refuses a receipt with neither line items nor parts', async () => {
    expect(refusal(await post({ email: 'resident@example.ae' }))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('give lineItems, parts or both'),
    });
  });

  it('refuses a receipt without an end-user identifier', async () => {
    expect(refusal(await post({ lineItems: [{ description: 'Water', unitPrice: 1 }] }))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('at least one end-user identifier'),
    });
  });

  it('finds the same end user by any identifier it has been named by', async () => {
    const first = field((await post(receiptBody({ email: 'a@example.ae', mobileNumber: '+971 50 123 4567' }))).json, 'endUserId');
    const byMobile = field((await post(receiptBody({ email: undefined, mobileNumber: '+971501234567' }))).json, 'endUserId');
    const byId = field((await post(receiptBody({ email: undefined, endUserId: first }))).json, 'endUserId');
    expect(first).toMatch(UUID);
    expect([byMobile, byId]).toEqual([first, first]);
  });

  it('refuses identifiers that name different end users', async () => {
    await post(receiptBody({ email: 'a@example.ae' }));
    await post(receiptBody({ email: 'b@example.ae', emiratesId: '784-1990-1234567-1' }));
    expect(refusal(await post(receiptBody({ email: 'a@example.ae', emiratesId: '784199012345671' })))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('name different end users'),
    });
  });

  it('answers an endUserId the sandbox never issued with 404 EntityNotFound', async () => {
    const answer = await post(receiptBody({ email: undefined, endUserId: '3f0e7a52-0000-4000-8000-000000000000' }));
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 404, errorCode: 'EntityNotFound' });
  });

  it('compares a totalAmount with the line items by value', async () => {
    const items = [
      { description: 'Water', unitPrice: '0.1' },
      { description: 'Sewage', unitPrice: 0.2 },
    ];
    expect((await post(receiptBody({ lineItems: items, totalAmount: '0.30' }))).status).toBe(200);
    expect(refusal(await post(receiptBody({ lineItems: items, totalAmount: 0.31 })))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('0.31 is not the sum of the line items (0.3)'),
    });
  });

  it('answers the same request under a known reference with the first receipt', async () => {
    const first = await post(receiptBody({ reference: 'R-1', lineItems: [{ description: 'Water', unitPrice: '10.50', quantity: 1 }] }));
    const again = await post(receiptBody({ reference: 'R-1', lineItems: [{ description: 'Water', unitPrice: 10.5 }] }));
    expect({ status: again.status, id: field(again.json, 'id') }).toEqual({ status: 200, id: field(first.json, 'id') });
  });

  it('refuses other content under a known reference', async () => {
    await post(receiptBody({ reference: 'R-2' }));
    expect(refusal(await post(receiptBody({ reference: 'R-2', currency: 'Usd' })))).toEqual({
      status: 400,
      errorCode: 'InvalidData',
      message: expect.stringContaining('reference R-2 is already used by receipt'),
    });
  });

  it('refuses a field the sandbox does not know', async () => {
    expect((await post(receiptBody({ colour: 'blue' }))).status).toBe(400);
  });

  it('answers without a session 401 InvalidSession', async () => {
    const answer = await call(sandbox.url, 'POST', '/api/v1/receipts', { body: receiptBody() });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });
});
