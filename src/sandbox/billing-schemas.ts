// Request validation for receipts (POST /api/v1/receipts, the contract's §2.2–2.4) and invoices
// (POST /api/v1/invoices, §2.5), with the contract's field names, types and defaults. Values are
// kept as sent: amounts are JSON numbers and no arithmetic is asked of them. Every failure is
// `400 InvalidData` naming the field (schemas.ts parseOrThrow); unknown fields are refused, as for
// letters. Where the contract says "not shown", the choice is documented in docs/sandbox-api.md;
// the length limits here are the sandbox's own.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isStrictBase64 } from './base64.js';
import { type EndUserIdentifiers, IDENTIFIER_KINDS } from './end-users.js';
import { type DocumentType, sniffDocumentType } from './file-type.js';

export const BILLING_LIMITS = {
  referenceChars: 100,
  textChars: 500,
  lineItems: 100,
  parts: 20,
  fileNameChars: 255,
} as const;

const nonBlank = (s: string): boolean => s.trim().length > 0;

/** The contract's `decimal` (and the invoice's `number`): any JSON number, kept as sent. */
const decimal = z.number({ error: 'must be a JSON number, e.g. 10.5' });
const text = z.string().max(BILLING_LIMITS.textChars);
/** The contract's `datetime`, an ISO 8601 UTC timestamp: a zone (Z or an offset) is required; kept as sent. */
const datetime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 UTC timestamp like 2026-11-01T08:15:30Z' });
const currency = text.refine(nonBlank, 'must not be empty').default('Aed');

const lineItemSchema = z.strictObject({
  description: text.refine(nonBlank, 'must not be empty'),
  quantity: decimal.default(1),
  unit: text.optional(),
  unitPrice: decimal.optional(),
  totalAmount: decimal.optional(),
  vatPercentage: decimal.optional(),
  vatAmount: decimal.optional(),
  category: text.optional(),
  productCode: text.optional(),
});
export type LineItem = z.output<typeof lineItemSchema>;

export interface BillingPart {
  readonly fileName: string;
  readonly mimeType: DocumentType;
  readonly bytes: Buffer;
  readonly sha256: string;
}

/** What a `mimeType` may say for each type the bytes can be (`image/jpg` is a common name for JPEG). */
const MIME_NAMES: Readonly<Record<DocumentType, readonly string[]>> = {
  'application/pdf': ['application/pdf'],
  'image/jpeg': ['image/jpeg', 'image/jpg'],
  'image/png': ['image/png'],
  'image/webp': ['image/webp'],
};

/** A document part (§2.4): its type is what its bytes are; a `mimeType`, when sent, must agree with them. */
const partSchema = z
  .strictObject({
    fileName: z.string().min(1).max(BILLING_LIMITS.fileNameChars),
    mimeType: z.string().optional(),
    base64Data: z.string().refine(isStrictBase64, 'must be non-empty strict base64 (A-Z a-z 0-9 + /, = padding, no line breaks)'),
  })
  .transform((p, ctx): BillingPart => {
    const bytes = Buffer.from(p.base64Data, 'base64');
    const sniffed = sniffDocumentType(bytes);
    if (sniffed === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['base64Data'],
        message: 'is not a PDF, JPEG, PNG or WebP file (judged by its bytes, not its name)',
      });
      return z.NEVER;
    }
    if (p.mimeType !== undefined && !MIME_NAMES[sniffed].includes(p.mimeType.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['mimeType'], message: `says ${p.mimeType} but the bytes are ${sniffed}` });
      return z.NEVER;
    }
    return { fileName: p.fileName, mimeType: sniffed, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  });

// UAE identity card number: 784, birth year, 7 digits, check digit (written with or without dashes).
const EMIRATES_ID = /^784-?\d{4}-?\d{7}-?\d$/;

/** The three end-user identifiers (§2.2); any well-formed one is accepted (the contract shows no registration). */
const identifierFields = {
  endUserServiceId: z.guid({ error: 'must be a guid like 0b6c2f6e-1c1a-4d8e-9a57-3e2f1d0c4b5a' }).optional(),
  endUserIdpId: text.refine(nonBlank, 'must not be empty').optional(),
  endUserEmiratesId: z.string().regex(EMIRATES_ID, 'must be an Emirates ID like 784-1990-1234567-1').optional(),
};

const hasIdentifier = (body: Readonly<Partial<Record<(typeof IDENTIFIER_KINDS)[number], string | undefined>>>): boolean =>
  IDENTIFIER_KINDS.some((kind) => body[kind] !== undefined);
const identifierRule = { message: `give one of ${IDENTIFIER_KINDS.join(', ')}`, path: ['endUserServiceId'] };

const reference = z.string().max(BILLING_LIMITS.referenceChars).refine(nonBlank, 'must not be empty');

export const receiptBodySchema = z
  .strictObject({
    reference,
    ...identifierFields,
    lineItems: z.array(lineItemSchema).max(BILLING_LIMITS.lineItems).optional(),
    parts: z.array(partSchema).max(BILLING_LIMITS.parts).optional(),
    transactionDateUtc: datetime.optional(),
    subtotal: decimal.optional(),
    vatAmount: decimal.optional(),
    totalAmount: decimal.optional(),
    currency,
    paymentMethod: text.optional(),
    cardLastFourDigits: z
      .string()
      .regex(/^\d{4}$/, 'must be the last 4 digits of the card, never more')
      .optional(),
    storeName: text.optional(),
    storeAddress: text.optional(),
  })
  .refine(hasIdentifier, identifierRule)
  .refine((r) => (r.lineItems?.length ?? 0) + (r.parts?.length ?? 0) > 0, {
    message: 'give lineItems, parts or both (at least one item or document)',
    path: ['lineItems'],
  });
export type ReceiptBody = z.output<typeof receiptBodySchema>;

export const invoiceBodySchema = z
  .strictObject({
    ...identifierFields,
    generatedAtUtc: datetime.optional(),
    amount: decimal.optional(),
    currency,
    dueDateUtc: datetime.optional(),
    payable: z.boolean().optional(),
    reference: reference.optional(),
    parts: z.array(partSchema).max(BILLING_LIMITS.parts).optional(),
  })
  .refine(hasIdentifier, identifierRule);
export type InvoiceBody = z.output<typeof invoiceBodySchema>;

/** The end-user identifiers a body carries. */
export function identifiersOf(body: ReceiptBody | InvoiceBody): EndUserIdentifiers {
  const ids: EndUserIdentifiers = {};
  if (body.endUserServiceId !== undefined) ids.endUserServiceId = body.endUserServiceId;
  if (body.endUserIdpId !== undefined) ids.endUserIdpId = body.endUserIdpId;
  if (body.endUserEmiratesId !== undefined) ids.endUserEmiratesId = body.endUserEmiratesId;
  return ids;
}
