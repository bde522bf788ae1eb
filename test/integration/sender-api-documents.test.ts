// The typed client's receipt and invoice calls against the sandbox over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Base64Data } from '../../src/net/base64-data.js';
import { type SenderDocuments, senderDocuments } from '../../src/sender-api/documents.js';
import { SenderApiError } from '../../src/sender-api/errors.js';
import { END_USER_SERVICE_ID, SAMPLE_BYTES } from '../helpers/billing-samples.js';
import { ACME, GLOBEX, sandboxClient, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Sender API client receipts and invoices', () => {
  let sandbox: TestSandbox;
  let acme: SenderDocuments;
  let globex: SenderDocuments;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    const api = sandboxClient(sandbox);
    acme = senderDocuments(api.as(ACME));
    globex = senderDocuments(api.as(GLOBEX));
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const failure = async (call: Promise<unknown>) => {
    const err: unknown = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof SenderApiError)) throw new Error(`expected a SenderApiError, got ${String(err)}`);
    return { kind: err.kind, statusCode: err.statusCode, errorCode: err.errorCode, endpoint: err.endpoint };
  };

  it('creates a contract-shaped receipt and reads every field of its answer', async () => {
    const receipt = await acme.createReceipt({
      reference: 'R-0004',
      endUserServiceId: END_USER_SERVICE_ID,
      lineItems: [{ description: 'Coffee', quantity: 2, unitPrice: 10, totalAmount: 21, vatPercentage: 5, vatAmount: 1 }],
      subtotal: 20,
      vatAmount: 1,
      totalAmount: 21,
      paymentMethod: 'credit card',
      cardLastFourDigits: '4242',
    });
    expect(receipt).toEqual({
      id: expect.stringMatching(UUID),
      endUserId: END_USER_SERVICE_ID,
      senderId: ACME.senderId,
      reference: 'R-0004',
      transactionDateUtc: null,
      subtotal: 20,
      vatAmount: 1,
      totalAmount: 21,
      currency: 'Aed',
      paymentMethod: 'credit card',
      cardLastFourDigits: '4242',
      storeName: null,
      storeAddress: null,
      lineItems: [
        {
          description: 'Coffee',
          quantity: 2,
          unit: null,
          unitPrice: 10,
          totalAmount: 21,
          vatPercentage: 5,
          vatAmount: 1,
          category: null,
          productCode: null,
        },
      ],
      createdAtUtc: '2026-11-02T09:00:00.000Z',
      sender: { companyNameEn: ACME.companyNameEn },
      documentUrls: [],
    });
  });

  it('creates a receipt whose document, sent as bytes, is served back at its URL', async () => {
    const receipt = await acme.createReceipt({
      reference: 'R-png',
      endUserIdpId: 'idp-subject-1',
      parts: [{ fileName: 'receipt.png', mimeType: 'image/png', base64Data: new Base64Data(SAMPLE_BYTES.png) }],
    });
    const [link] = receipt.documentUrls ?? [];
    const served = await fetch(String(link?.url));
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(SAMPLE_BYTES.png);
  });

  it('creates an invoice and reads it back by id', async () => {
    const created = await acme.createInvoice({
      endUserEmiratesId: '784-1985-7654321-2',
      amount: 240.8,
      dueDateUtc: '2026-12-01T00:00:00Z',
      payable: true,
      parts: [{ fileName: 'invoice.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(SAMPLE_BYTES.pdf) }],
    });
    const read = await acme.getInvoice(created.id);
    expect(read).toEqual({
      id: created.id,
      endUserIdpId: null,
      senderId: ACME.senderId,
      generatedAtUtc: null,
      sentUtc: '2026-11-02T09:00:00.000Z',
      amount: 240.8,
      currency: 'Aed',
      dueDateUtc: '2026-12-01T00:00:00Z',
      payable: true,
      reference: null,
    });
  });

  it("fails on another sender's invoice with a permanent EntityNotFound", async () => {
    const { id } = await acme.createInvoice({ endUserIdpId: 'idp-subject-1', amount: 3 });
    expect(await failure(globex.getInvoice(id))).toEqual({
      kind: 'permanent',
      statusCode: 404,
      errorCode: 'EntityNotFound',
      endpoint: 'GET /api/v1/invoices/{id}',
    });
  });

  it('fails on a receipt the API refuses with a permanent InvalidData', async () => {
    const refused = acme.createReceipt({ reference: 'R-bad', endUserServiceId: 'not-a-guid', lineItems: [{ description: 'Water' }] });
    expect(await failure(refused)).toEqual({
      kind: 'permanent',
      statusCode: 400,
      errorCode: 'InvalidData',
      endpoint: 'POST /api/v1/receipts',
    });
  });

  it('logs in again when the API has forgotten its session', async () => {
    await acme.createReceipt({ reference: 'R-a', endUserIdpId: 'idp-a', lineItems: [{ description: 'Water' }] });
    sandbox.store.forgetSessions();
    const again = await acme.createInvoice({ endUserIdpId: 'idp-a', amount: 1 });
    expect({ id: again.id, logins: sandbox.store.sessionCounts(ACME.senderId).logins }).toEqual({
      id: expect.stringMatching(UUID),
      logins: 2,
    });
  });
});
