// Receipts and invoices over the wire: what the client sends and what it reads back. The answer
// schemas require only the `id` and read the other fields when they are there, letting unknown
// fields through (docs/sandbox-api.md lists what the sandbox answers).
import { z } from 'zod';
import type { Base64Data } from './base64-data.js';

/** An amount as a JSON number or as a decimal string ("10.50"); the API compares them by value. */
export type Amount = number | string;

export interface LineItemInput {
  readonly description: string;
  /** 1 when absent. */
  readonly quantity?: Amount;
  readonly unitPrice: Amount;
}

/** A PDF, JPEG, PNG or WebP file; its type is judged by its bytes. */
export interface DocumentPartInput {
  readonly fileName: string;
  readonly mimeType?: 'application/pdf' | 'image/jpeg' | 'image/png' | 'image/webp';
  readonly base64Data: string | Base64Data;
}

/** At least one identifier; several must name the same end user. */
export interface EndUserInput {
  readonly endUserId?: string;
  readonly emiratesId?: string;
  readonly email?: string;
  readonly mobileNumber?: string;
}

export interface ReceiptInput extends EndUserInput {
  readonly reference?: string;
  /** `Aed` when absent. */
  readonly currency?: string;
  /** lineItems, parts or both. */
  readonly lineItems?: readonly LineItemInput[];
  readonly parts?: readonly DocumentPartInput[];
  readonly totalAmount?: Amount;
}

export interface InvoiceInput extends EndUserInput {
  readonly reference?: string;
  readonly currency?: string;
  readonly lineItems: readonly LineItemInput[];
  readonly parts?: readonly DocumentPartInput[];
  readonly totalAmount?: Amount;
  /** A calendar date, YYYY-MM-DD. */
  readonly dueDate?: string;
}

const documentUrlSchema = z.looseObject({
  url: z.string(),
  expiresAt: z.string().optional(),
  fileName: z.string().optional(),
  mimeType: z.string().optional(),
});

export const receiptAnswerSchema = z.looseObject({
  id: z.string().min(1),
  endUserId: z.string().optional(),
  senderId: z.string().optional(),
  createdAtUtc: z.string().optional(),
  reference: z.string().nullable().optional(),
  currency: z.string().optional(),
  totalAmount: z.number().nullable().optional(),
  sender: z.looseObject({ companyNameEn: z.string() }).optional(),
  documentUrls: z.array(documentUrlSchema).optional(),
});
export type ReceiptAnswer = z.output<typeof receiptAnswerSchema>;

export const invoiceAnswerSchema = receiptAnswerSchema.extend({ dueDate: z.string().nullable().optional() });
export type InvoiceAnswer = z.output<typeof invoiceAnswerSchema>;
