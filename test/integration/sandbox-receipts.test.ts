// POST /api/v1/receipts against the sandbox over HTTP, as the contract writes a receipt: its
// fields stored and answered as sent, the three end-user identifiers, document types by their
// bytes, amounts with no arithmetic asked of them (a mismatch is a log warning), the duplicate
// reference, and document URLs that serve their document until they expire on the sandbox's clock.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { END_USER_SERVICE_ID, receiptBody, SAMPLE_BYTES, samplePart } from '../helpers/billing-samples.js';
import { ACME, type ApiAnswer, call, field, login, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOUR_MS = 60 * 60 * 1000;

describe('sandbox receipts', () => {
  let sandbox: TestSandbox;
  let session: string;
  let logLines: string[];
  let references = 0;
  beforeEach(async () => {
    logLines = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    sandbox = await startTestSandbox({ logger: createLogger({ level: 'info', destination }) });
    session = await login(sandbox.url, ACME);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const post = (body: unknown): Promise<ApiAnswer> => call(sandbox.url, 'POST', '/api/v1/receipts', { session, body });
  /** A receipt under a reference of its own, so that it is never taken for an earlier one. */
  const fresh = (overrides: Readonly<Record<string, unknown>> = {}) => {
    references += 1;
    return receiptBody({ reference: `R-${references}`, ...overrides });
  };
  const refusal = (answer: ApiAnswer) => ({
    status: answer.status,
    errorCode: field(answer.json, 'errorCode'),
    message: field(answer.json, 'message'),
  });
  const invalid = (message: string) => ({ status: 400, errorCode: 'InvalidData', message: expect.stringContaining(message) });
  const documentUrls = (answer: ApiAnswer): Array<Record<string, unknown>> => {
    const urls = field(answer.json, 'documentUrls');
    return Array.isArray(urls) ? urls.filter((u): u is Record<string, unknown> => typeof u === 'object' && u !== null) : [];
  };

  it('answers a receipt with every field of the contract, each as sent, in the contract order', async () => {
    const line = {
      description: 'Coffee',
      quantity: 2,
      unit: 'cup',
      unitPrice: 10,
      totalAmount: 21,
      vatPercentage: 5,
      vatAmount: 1,
      category: 'Drinks',
      productCode: 'SKU-1',
    };
    const sent = {
      reference: 'R-0004',
      endUserServiceId: END_USER_SERVICE_ID,
      lineItems: [line],
      transactionDateUtc: '2026-11-01T08:15:30.250+04:00',
      subtotal: 20,
      vatAmount: 1,
      totalAmount: 21,
      currency: 'AED',
      paymentMethod: 'credit card',
      cardLastFourDigits: '4242',
      storeName: 'Main Street',
      storeAddress: '1 Main Street, Dubai',
    };
    const answer = await post(sent);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      endUserId: END_USER_SERVICE_ID,
      senderId: ACME.senderId,
      reference: 'R-0004',
      transactionDateUtc: '2026-11-01T08:15:30.250+04:00',
      subtotal: 20,
      vatAmount: 1,
      totalAmount: 21,
      currency: 'AED',
      paymentMethod: 'credit card',
      cardLastFourDigits: '4242',
      storeName: 'Main Street',
      storeAddress: '1 Main Street, Dubai',
      lineItems: [line],
      createdAtUtc: '2026-11-02T09:00:00.000Z',
      sender: { companyNameEn: ACME.companyNameEn },
      documentUrls: [],
    });
    const keys = typeof answer.json === 'object' && answer.json !== null ? Object.keys(answer.json) : [];
    expect(keys).toEqual([
      'id',
      'endUserId',
      'senderId',
      'reference',
      'transactionDateUtc',
      'subtotal',
      'vatAmount',
      'totalAmount',
      'currency',
      'paymentMethod',
      'cardLastFourDigits',
      'storeName',
      'storeAddress',
      'lineItems',
      'createdAtUtc',
      'sender',
      'documentUrls',
    ]);
  });

  it('answers every field of a minimal receipt: null where nothing was given, currency Aed, quantity 1', async () => {
    const answer = await post({ reference: 'R-min', endUserIdpId: 'idp-subject-1', lineItems: [{ description: 'Coffee' }] });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      reference: 'R-min',
      transactionDateUtc: null,
      subtotal: null,
      vatAmount: null,
      totalAmount: null,
      currency: 'Aed',
      paymentMethod: null,
      cardLastFourDigits: null,
      storeName: null,
      storeAddress: null,
      lineItems: [
        {
          description: 'Coffee',
          quantity: 1,
          unit: null,
          unitPrice: null,
          totalAmount: null,
          vatPercentage: null,
          vatAmount: null,
          category: null,
          productCode: null,
        },
      ],
    });
  });

  it('takes any JSON number as a decimal (100 and 100.0 alike) and refuses an amount written as a string', async () => {
    const whole = await call(sandbox.url, 'POST', '/api/v1/receipts', {
      session,
      body: '{"reference":"R-100","endUserServiceId":"0b6c2f6e-1c1a-4d8e-9a57-3e2f1d0c4b5a","lineItems":[{"description":"Coffee","unitPrice":100.0}],"totalAmount":100}',
    });
    expect(whole.status).toBe(200);
    expect([field(whole.json, 'totalAmount'), field(field(whole.json, 'lineItems'), '0')]).toEqual([
      100,
      expect.objectContaining({ unitPrice: 100 }),
    ]);
    expect(refusal(await post(fresh({ totalAmount: '10.50' })))).toEqual(invalid('totalAmount: must be a JSON number'));
  });

  it('stores a tax-inclusive total as sent: the total is not the sum of the lines, and nothing is refused', async () => {
    const answer = await post(
      fresh({ lineItems: [{ description: 'Coffee', quantity: 2, unitPrice: 10 }], subtotal: 20, vatAmount: 1, totalAmount: 21 }),
    );
    expect({ status: answer.status, totalAmount: field(answer.json, 'totalAmount') }).toEqual({ status: 200, totalAmount: 21 });
    expect(logLines.join('')).not.toContain('do not add up');
  });

  it('stores amounts that do not add up as sent and says so in the log, not in the answer', async () => {
    const answer = await post(
      fresh({
        lineItems: [{ description: 'Coffee', quantity: 3, unitPrice: 0.1, totalAmount: 0.31 }],
        subtotal: 0.3,
        vatAmount: 0.02,
        totalAmount: 0.31,
      }),
    );
    expect({ status: answer.status, totalAmount: field(answer.json, 'totalAmount') }).toEqual({ status: 200, totalAmount: 0.31 });
    const warning = logLines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'sandbox receipt amounts do not add up (stored as sent)');
    expect(warning).toMatchObject({
      level: 40,
      receiptId: field(answer.json, 'id'),
      findings: ['subtotal 0.3 + vatAmount 0.02 is not totalAmount 0.31', 'lineItems.0: quantity × unitPrice is 0.3, not totalAmount 0.31'],
    });
  });

  it.each([
    ['pdf', 'receipt.pdf', 'application/pdf'],
    ['jpeg', 'receipt.jpg', 'image/jpeg'],
    ['jpeg', 'receipt.jpeg', 'image/jpeg'],
    ['png', 'receipt.png', 'image/png'],
    ['webp', 'receipt.webp', 'image/webp'],
  ] as const)('accepts a %s part (%s) and serves it back byte for byte at its URL', async (kind, fileName, mimeType) => {
    const answer = await post(fresh({ lineItems: undefined, parts: [samplePart(kind, fileName)] }));
    expect(answer.status).toBe(200);
    const [link] = documentUrls(answer);
    expect(link).toEqual({
      url: expect.stringMatching(new RegExp(`^${sandbox.url}/sandbox/documents/[0-9a-f-]{36}$`)),
      expiresAt: '2026-11-02T10:00:00.000Z',
    });
    const served = await fetch(String(link?.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(mimeType);
    expect(served.headers.get('content-disposition')).toContain(fileName);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(SAMPLE_BYTES[kind]);
  });

  it('judges a part by its bytes: a PNG named .pdf is served as a PNG', async () => {
    const [link] = documentUrls(await post(fresh({ parts: [samplePart('png', 'scan.pdf')] })));
    expect((await fetch(String(link?.url))).headers.get('content-type')).toBe('image/png');
  });

  it('refuses a part named .pdf whose bytes are text', async () => {
    expect(refusal(await post(fresh({ parts: [samplePart('text', 'receipt.pdf')] })))).toEqual(invalid('parts.0.base64Data'));
  });

  it('refuses a part whose mimeType disagrees with its bytes, and takes image/jpg for a JPEG', async () => {
    const jpeg = samplePart('jpeg', 'receipt.jpg');
    expect(refusal(await post(fresh({ parts: [{ ...jpeg, mimeType: 'image/png' }] })))).toEqual(
      invalid('says image/png but the bytes are image/jpeg'),
    );
    expect((await post(fresh({ parts: [{ ...jpeg, mimeType: 'image/jpg' }] }))).status).toBe(200);
  });

  it('serves a document until its URL expires on the sandbox clock, then answers 404 EntityNotFound', async () => {
    const [link] = documentUrls(await post(fresh({ parts: [samplePart('pdf', 'r.pdf')] })));
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

  it('refuses a receipt with neither line items nor parts (empty lists count as none)', async () => {
    expect(refusal(await post(fresh({ lineItems: [], parts: [] })))).toEqual(invalid('give lineItems, parts or both'));
  });

  it('refuses a receipt without a reference', async () => {
    expect(refusal(await post(receiptBody({ reference: undefined })))).toEqual(invalid('reference'));
  });

  it('refuses a receipt without an end-user identifier, naming the three', async () => {
    expect(refusal(await post(fresh({ endUserServiceId: undefined })))).toEqual(
      invalid('give one of endUserServiceId, endUserIdpId, endUserEmiratesId'),
    );
  });

  it('takes any well-formed endUserServiceId as the end user (no registration), and refuses one that is not a guid', async () => {
    const someone = '7a0c9e52-0000-0000-0000-00000000abcd';
    expect(field((await post(fresh({ endUserServiceId: someone }))).json, 'endUserId')).toBe(someone);
    expect(refusal(await post(fresh({ endUserServiceId: 'user-17' })))).toEqual(invalid('endUserServiceId: must be a guid'));
  });

  it('finds the same end user by any identifier it has been named by', async () => {
    const first = field(
      (await post(fresh({ endUserServiceId: undefined, endUserIdpId: 'idp-9', endUserEmiratesId: '784-1990-1234567-1' }))).json,
      'endUserId',
    );
    const byIdp = field((await post(fresh({ endUserServiceId: undefined, endUserIdpId: 'idp-9' }))).json, 'endUserId');
    const byEmiratesId = field(
      (await post(fresh({ endUserServiceId: undefined, endUserEmiratesId: '784199012345671' }))).json,
      'endUserId',
    );
    expect(first).toMatch(UUID);
    expect([byIdp, byEmiratesId]).toEqual([first, first]);
  });

  it('refuses identifiers that name different end users', async () => {
    await post(fresh({ endUserServiceId: undefined, endUserIdpId: 'idp-a' }));
    expect(refusal(await post(fresh({ endUserIdpId: 'idp-a' })))).toEqual(invalid('name different end users'));
  });

  it.each([
    ['cardLastFourDigits', '4242424242424242', 'must be the last 4 digits'],
    ['transactionDateUtc', '2026-11-01T08:15:30', 'must be an ISO 8601 UTC timestamp'],
    ['endUserEmiratesId', '123', 'must be an Emirates ID'],
    ['colour', 'blue', 'Unrecognized key'],
  ])('refuses %s %j', async (name, value, message) => {
    expect(refusal(await post(fresh({ [name]: value })))).toEqual(invalid(message));
  });

  it('answers the same request under a known reference with the first receipt', async () => {
    const first = await post(receiptBody({ reference: 'R-1' }));
    const again = await post(receiptBody({ reference: 'R-1' }));
    expect({ status: again.status, id: field(again.json, 'id') }).toEqual({ status: 200, id: field(first.json, 'id') });
  });

  it('refuses other content under a known reference', async () => {
    await post(receiptBody({ reference: 'R-2' }));
    expect(refusal(await post(receiptBody({ reference: 'R-2', currency: 'Usd' })))).toEqual(
      invalid('reference R-2 is already used by receipt'),
    );
  });

  it('answers without a session 401 InvalidSession', async () => {
    const answer = await call(sandbox.url, 'POST', '/api/v1/receipts', { body: receiptBody() });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });
});
