// Receipts and invoices over the wire, with the contract's names (§2.2–2.5): what the client
// sends, typed so that a field the contract does not have is a compile error, and what it reads
// back. The answer schemas require only the `id`; every other field is read when it has the
// contract's type and left undefined when it does not, and unknown fields pass through.
import { z } from 'zod';
import type { Base64Data } from '../net/base64-data.js';

/** The contract's `decimal` (a JSON number; the API stores it as sent). */
export type Decimal = number;

/** The contract's `datetime`: an ISO 8601 UTC timestamp, e.g. `2026-11-01T08:15:30Z`. */
export type UtcDateTime = string;

/** §2.3: only `description` is required; `quantity` is 1 when absent. */
export interface LineItemInput {
  readonly description: string;
  readonly quantity?: Decimal;
  readonly unit?: string;
  readonly unitPrice?: Decimal;
  readonly totalAmount?: Decimal;
  readonly vatPercentage?: Decimal;
  readonly vatAmount?: Decimal;
  readonly category?: string;
  readonly productCode?: string;
}

/** The file types a receipt's document may be (§2.4): pdf, jpg, jpeg, png, webp. */
export type ReceiptDocumentType = 'application/pdf' | 'image/jpeg' | 'image/png' | 'image/webp';

/** §2.4, a new document: its content as base64 text, or its bytes to send as base64. */
export interface DocumentPartInput<M extends string = string> {
  readonly fileName: string;
  readonly mimeType: M;
  readonly base64Data: string | Base64Data;
}

/** The end user: one of the three identifiers is required (several must name the same person). */
export type EndUserInput =
  | { readonly endUserServiceId: string; readonly endUserIdpId?: string; readonly endUserEmiratesId?: string }
  | { readonly endUserServiceId?: string; readonly endUserIdpId: string; readonly endUserEmiratesId?: string }
  | { readonly endUserServiceId?: string; readonly endUserIdpId?: string; readonly endUserEmiratesId: string };

/** A receipt's content: line items, documents, or both. */
export type ReceiptContentInput =
  | { readonly lineItems: readonly LineItemInput[]; readonly parts?: readonly DocumentPartInput<ReceiptDocumentType>[] }
  | { readonly lineItems?: readonly LineItemInput[]; readonly parts: readonly DocumentPartInput<ReceiptDocumentType>[] };

/** §2.2, the receipt request. */
export type ReceiptInput = EndUserInput &
  ReceiptContentInput & {
    /** The sender's own reference, meant to be unique. */
    readonly reference: string;
    readonly transactionDateUtc?: UtcDateTime;
    /** Before tax. */
    readonly subtotal?: Decimal;
    readonly vatAmount?: Decimal;
    /** Including tax. */
    readonly totalAmount?: Decimal;
    /** `Aed` when absent. */
    readonly currency?: string;
    readonly paymentMethod?: string;
    readonly cardLastFourDigits?: string;
    readonly storeName?: string;
    readonly storeAddress?: string;
  };

/** §2.5, the invoice request (the contract shows no required fields beyond an end user). */
export type InvoiceInput = EndUserInput & {
  readonly generatedAtUtc?: UtcDateTime;
  readonly amount?: number;
  /** `Aed` when absent. */
  readonly currency?: string;
  readonly dueDateUtc?: UtcDateTime;
  /** `true` lets the end user pay the invoice through the service. */
  readonly payable?: boolean;
  readonly reference?: string;
  readonly parts?: readonly DocumentPartInput[];
};

// A field the answer should have, read leniently: absent or of another type is undefined.
const text = z.string().nullable().optional().catch(undefined);
const amount = z.number().nullable().optional().catch(undefined);

const lineItemAnswerSchema = z.looseObject({
  description: z.string().optional().catch(undefined),
  quantity: amount,
  unit: text,
  unitPrice: amount,
  totalAmount: amount,
  vatPercentage: amount,
  vatAmount: amount,
  category: text,
  productCode: text,
});

const documentUrlSchema = z.looseObject({ url: z.string(), expiresAt: z.string().optional().catch(undefined) });

/** §2.2, the receipt response. */
export const receiptAnswerSchema = z.looseObject({
  id: z.string().min(1),
  endUserId: text,
  senderId: text,
  reference: text,
  transactionDateUtc: text,
  subtotal: amount,
  vatAmount: amount,
  totalAmount: amount,
  currency: text,
  paymentMethod: text,
  cardLastFourDigits: text,
  storeName: text,
  storeAddress: text,
  lineItems: z.array(lineItemAnswerSchema).optional().catch(undefined),
  createdAtUtc: text,
  sender: z.looseObject({ companyNameEn: z.string() }).optional().catch(undefined),
  documentUrls: z.array(documentUrlSchema).optional().catch(undefined),
});
export type ReceiptAnswer = z.output<typeof receiptAnswerSchema>;

/** §2.5, the invoice response (the GET answers it too). */
export const invoiceAnswerSchema = z.looseObject({
  id: z.string().min(1),
  endUserIdpId: text,
  senderId: text,
  generatedAtUtc: text,
  sentUtc: text,
  amount,
  currency: text,
  dueDateUtc: text,
  payable: z.boolean().nullable().optional().catch(undefined),
  reference: text,
});
export type InvoiceAnswer = z.output<typeof invoiceAnswerSchema>;
