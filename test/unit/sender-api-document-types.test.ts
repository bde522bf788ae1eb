// The typed client's receipt and invoice inputs at compile time: an object written as the
// contract writes it (§2.2–2.5) is accepted, and a field the contract does not have, an old name,
// a missing requirement or a wrong type is a compile error. `npm run typecheck` checks the
// `@ts-expect-error` lines: each fails the typecheck if its line ever compiles.
import { describe, expect, it } from 'vitest';
import { Base64Data } from '../../src/net/base64-data.js';
import type { InvoiceInput, LineItemInput, ReceiptInput } from '../../src/sender-api/index.js';

const END_USER = '0b6c2f6e-1c1a-4d8e-9a57-3e2f1d0c4b5a';
const PDF = new Base64Data(Buffer.from('%PDF-1.4\n%%EOF\n'));

const contractReceipt: ReceiptInput = {
  reference: 'R-0004',
  endUserServiceId: END_USER,
  endUserIdpId: 'idp-subject-1',
  endUserEmiratesId: '784-1990-1234567-1',
  lineItems: [
    {
      description: 'Coffee',
      quantity: 2,
      unit: 'cup',
      unitPrice: 10,
      totalAmount: 21,
      vatPercentage: 5,
      vatAmount: 1,
      category: 'Drinks',
      productCode: 'SKU-1',
    },
  ],
  parts: [{ fileName: 'receipt.pdf', mimeType: 'application/pdf', base64Data: PDF }],
  transactionDateUtc: '2026-11-01T08:15:30Z',
  subtotal: 20,
  vatAmount: 1,
  totalAmount: 21,
  currency: 'Aed',
  paymentMethod: 'credit card',
  cardLastFourDigits: '4242',
  storeName: 'Main Street',
  storeAddress: '1 Main Street, Dubai',
};

const contractInvoice: InvoiceInput = {
  endUserServiceId: END_USER,
  endUserIdpId: 'idp-subject-1',
  endUserEmiratesId: '784-1990-1234567-1',
  generatedAtUtc: '2026-11-01T08:00:00Z',
  amount: 250.75,
  currency: 'Aed',
  dueDateUtc: '2026-12-01T00:00:00Z',
  payable: true,
  reference: 'INV-1',
  parts: [{ fileName: 'invoice.pdf', mimeType: 'application/pdf', base64Data: 'JVBERi0=' }],
};

const GIF_PART = { fileName: 'a.gif', mimeType: 'image/gif', base64Data: 'R0lGODlh' } as const;

const refused: unknown[] = [
  // @ts-expect-error an unknown field is not a receipt's
  { reference: 'R-1', endUserServiceId: END_USER, lineItems: [{ description: 'Coffee' }], colour: 'blue' } satisfies ReceiptInput,
  // @ts-expect-error the old name endUserId is not a request field
  { reference: 'R-1', endUserId: END_USER, lineItems: [{ description: 'Coffee' }] } satisfies ReceiptInput,
  // @ts-expect-error an end user is required: one of the three identifiers
  { reference: 'R-1', lineItems: [{ description: 'Coffee' }] } satisfies ReceiptInput,
  // @ts-expect-error a receipt needs lineItems, parts or both
  { reference: 'R-1', endUserIdpId: 'idp-1' } satisfies ReceiptInput,
  // @ts-expect-error reference is required on a receipt
  { endUserIdpId: 'idp-1', lineItems: [{ description: 'Coffee' }] } satisfies ReceiptInput,
  // @ts-expect-error a decimal is a JSON number, not a string
  { reference: 'R-1', endUserIdpId: 'idp-1', lineItems: [{ description: 'Coffee' }], totalAmount: '21.00' } satisfies ReceiptInput,
  // @ts-expect-error a receipt's document is pdf, jpeg, png or webp
  { reference: 'R-1', endUserIdpId: 'idp-1', parts: [GIF_PART] } satisfies ReceiptInput,
  // @ts-expect-error a line item field the contract does not have
  { description: 'Coffee', amount: 10 } satisfies LineItemInput,
  // @ts-expect-error a line item needs its description
  { unitPrice: 10 } satisfies LineItemInput,
  // @ts-expect-error an invoice has no line items in the contract
  { endUserIdpId: 'idp-1', amount: 10, lineItems: [{ description: 'Coffee' }] } satisfies InvoiceInput,
  // @ts-expect-error the old name dueDate is not an invoice field
  { endUserIdpId: 'idp-1', dueDate: '2026-12-01' } satisfies InvoiceInput,
  // @ts-expect-error an invoice needs an end user too
  { amount: 10 } satisfies InvoiceInput,
];

describe('the client receipt and invoice types', () => {
  it('hold contract-shaped objects (the compile-time checks are the @ts-expect-error lines above)', () => {
    expect([contractReceipt.reference, contractInvoice.reference, refused.length]).toEqual(['R-0004', 'INV-1', 12]);
  });
});
