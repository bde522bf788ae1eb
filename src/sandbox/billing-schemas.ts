// Request validation for receipts (POST /api/v1/receipts) and invoices (POST /api/v1/invoices).
// Every failure is `400 InvalidData` naming the field (schemas.ts parseOrThrow). Unknown fields
// are refused, as for letters. The limits here are the sandbox's own (docs/sandbox-api.md).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isStrictBase64 } from './base64.js';
import { type Decimal, isNegative, isPositive, parseDecimal } from './decimal.js';
import type { EndUserIdentifiers } from './end-users.js';
import { type DocumentType, sniffDocumentType } from './file-type.js';

export const BILLING_LIMITS = {
  referenceChars: 100,
  descriptionChars: 500,
  lineItems: 100,
  parts: 20,
  fileNameChars: 255,
} as const;

const DOCUMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/webp'] as const;

const amount = z.union([z.number(), z.string()]).transform((value, ctx): Decimal => {
  const parsed = parseDecimal(value);
  if (parsed !== undefined) return parsed;
  ctx.addIssue({
    code: 'custom',
    message: 'must be a decimal number (a JSON number or a string like "10.50", no exponent, at most 6 decimals)',
  });
  return z.NEVER;
});

const ONE: Decimal = { units: 1n, scale: 0 };

const lineItemSchema = z.strictObject({
  description: z.string().trim().min(1, 'must not be empty').max(BILLING_LIMITS.descriptionChars),
  quantity: amount.refine(isPositive, 'must be greater than 0').default(ONE),
  unitPrice: amount.refine((d) => !isNegative(d), 'must not be negative'),
});
export type LineItem = z.output<typeof lineItemSchema>;

export interface BillingPart {
  readonly fileName: string;
  readonly mimeType: DocumentType;
  readonly bytes: Buffer;
  readonly sha256: string;
}

/** A document: its type is what its bytes are; a `mimeType`, when sent, must agree with them. */
const partSchema = z
  .strictObject({
    fileName: z.string().min(1).max(BILLING_LIMITS.fileNameChars),
    mimeType: z.enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` }).optional(),
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
    if (p.mimeType !== undefined && p.mimeType !== sniffed) {
      ctx.addIssue({ code: 'custom', path: ['mimeType'], message: `says ${p.mimeType} but the bytes are ${sniffed}` });
      return z.NEVER;
    }
    return { fileName: p.fileName, mimeType: sniffed, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  });

// UAE identity card number: 784, birth year, 7 digits, check digit (written with or without dashes).
const emiratesId = z
  .string()
  .regex(/^784-?\d{4}-?\d{7}-?\d$/, 'must be an Emirates ID like 784-1990-1234567-1')
  .transform((s) => s.replaceAll('-', ''));
// E.164: a +, then up to 15 digits; spaces, dashes and brackets are ignored.
const mobileNumber = z
  .string()
  .transform((s) => s.replace(/[\s()-]/g, ''))
  .pipe(z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an international number like +971 50 123 4567'));

const identifierFields = {
  endUserId: z
    .uuid()
    .transform((s) => s.toLowerCase())
    .optional(),
  emiratesId: emiratesId.optional(),
  email: z
    .email()
    .transform((s) => s.toLowerCase())
    .optional(),
  mobileNumber: mobileNumber.optional(),
};

const commonFields = {
  ...identifierFields,
  reference: z.string().trim().min(1, 'must not be empty').max(BILLING_LIMITS.referenceChars).optional(),
  currency: z
    .string()
    .regex(/^[A-Z][a-z]{2}$/, 'must be a currency like Aed (ISO 4217, written as the contract writes Aed)')
    .default('Aed'),
  totalAmount: amount.refine((d) => !isNegative(d), 'must not be negative').optional(),
  parts: z.array(partSchema).min(1).max(BILLING_LIMITS.parts).optional(),
};

export const receiptBodySchema = z
  .strictObject({ ...commonFields, lineItems: z.array(lineItemSchema).min(1).max(BILLING_LIMITS.lineItems).optional() })
  .refine((r) => r.lineItems !== undefined || r.parts !== undefined, { message: 'give lineItems, parts or both', path: ['lineItems'] });
export type ReceiptBody = z.output<typeof receiptBodySchema>;

export const invoiceBodySchema = z.strictObject({
  ...commonFields,
  lineItems: z.array(lineItemSchema, { error: 'is required: a list of at least one line item' }).min(1).max(BILLING_LIMITS.lineItems),
  dueDate: z.iso.date().optional(),
});
export type InvoiceBody = z.output<typeof invoiceBodySchema>;

/** The end-user identifiers a body carries. */
export function identifiersOf(body: ReceiptBody | InvoiceBody): EndUserIdentifiers {
  const ids: EndUserIdentifiers = {};
  if (body.endUserId !== undefined) ids.endUserId = body.endUserId;
  if (body.emiratesId !== undefined) ids.emiratesId = body.emiratesId;
  if (body.email !== undefined) ids.email = body.email;
  if (body.mobileNumber !== undefined) ids.mobileNumber = body.mobileNumber;
  return ids;
}
