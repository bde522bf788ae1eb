// The typed client's receipt and invoice calls against the sandbox over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { Base64Data } from '../../src/sender-api/base64-data.js';
import { createSenderApiClient } from '../../src/sender-api/client.js';
import { type SenderDocuments, senderDocuments } from '../../src/sender-api/documents.js';
import { SenderApiError } from '../../src/sender-api/errors.js';
import { SAMPLE_BYTES } from '../helpers/billing-samples.js';
import { ACME, GLOBEX, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Sender API client receipts and invoices', () => {
  let sandbox: TestSandbox;
  let acme: SenderDocuments;
  let globex: SenderDocuments;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    const api = createSenderApiClient({
      baseUrl: sandbox.url,
      clock: sandbox.clock.now,
      timeoutMs: 5000,
      logger: createLogger({ level: 'silent' }),
    });
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

  it('creates a receipt with line items and reads its generated fields', async () => {
    const receipt = await acme.createReceipt({ email: 'resident@example.ae', lineItems: [{ description: 'Water', unitPrice: '12.50' }] });
    expect(receipt).toMatchObject({
      id: expect.stringMatching(UUID),
      endUserId: expect.stringMatching(UUID),
      senderId: ACME.senderId,
      createdAtUtc: '2026-11-02T09:00:00.000Z',
      currency: 'Aed',
      totalAmount: 12.5,
      documentUrls: [],
    });
  });

  it('creates a receipt whose document, sent as bytes, is served back at its URL', async () => {
    const receipt = await acme.createReceipt({
      mobileNumber: '+971501234567',
      parts: [{ fileName: 'receipt.png', base64Data: new Base64Data(SAMPLE_BYTES.png) }],
    });
    const [link] = receipt.documentUrls ?? [];
    expect(link?.mimeType).toBe('image/png');
    const served = await fetch(String(link?.url));
    expect(Buffer.from(await served.arrayBuffer())).toEqual(SAMPLE_BYTES.png);
  });

  it('creates an invoice and reads it back by id', async () => {
    const created = await acme.createInvoice({
      emiratesId: '784-1985-7654321-2',
      lineItems: [{ description: 'Electricity', unitPrice: 120.4, quantity: 2 }],
      dueDate: '2026-12-01',
    });
    const read = await acme.getInvoice(created.id);
    expect({ id: read.id, totalAmount: read.totalAmount, dueDate: read.dueDate }).toEqual({
      id: created.id,
      totalAmount: 240.8,
      dueDate: '2026-12-01',
    });
  });

  it("fails on another sender's invoice with a permanent EntityNotFound", async () => {
    const { id } = await acme.createInvoice({ email: 'a@example.ae', lineItems: [{ description: 'Gas', unitPrice: 3 }] });
    expect(await failure(globex.getInvoice(id))).toEqual({
      kind: 'permanent',
      statusCode: 404,
      errorCode: 'EntityNotFound',
      endpoint: 'GET /api/v1/invoices/{id}',
    });
  });

  it('fails on a receipt without an end user with a permanent InvalidData', async () => {
    expect(await failure(acme.createReceipt({ lineItems: [{ description: 'Water', unitPrice: 1 }] }))).toEqual({
      kind: 'permanent',
      statusCode: 400,
      errorCode: 'InvalidData',
      endpoint: 'POST /api/v1/receipts',
    });
  });

  it('logs in again when the API has forgotten its session', async () => {
    await acme.createReceipt({ email: 'a@example.ae', lineItems: [{ description: 'Water', unitPrice: 1 }] });
    sandbox.store.forgetSessions();
    const again = await acme.createInvoice({ email: 'a@example.ae', lineItems: [{ description: 'Water', unitPrice: 1 }] });
    expect({ id: again.id, logins: sandbox.store.sessionCounts(ACME.senderId).logins }).toEqual({
      id: expect.stringMatching(UUID),
      logins: 2,
    });
  });
});
