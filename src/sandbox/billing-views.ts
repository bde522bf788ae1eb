// What the sandbox answers for a receipt or an invoice. Amounts are JSON numbers (exact at the
// sizes and precision the schema admits); each document gets a fresh URL with its expiry.
import type { BillingRecord } from './billing-store.js';
import { decimalNumber } from './decimal.js';
import type { DocumentLink, StoredDocument } from './document-store.js';

export interface DocumentUrlView {
  readonly fileName: string;
  readonly mimeType: string;
  readonly url: string;
  readonly expiresAt: string;
}

export interface LineItemView {
  readonly description: string;
  readonly quantity: number;
  readonly unitPrice: number;
  readonly amount: number;
}

export interface ReceiptView {
  readonly id: string;
  readonly reference: string | null;
  readonly endUserId: string;
  readonly senderId: string;
  readonly createdAtUtc: string;
  readonly sender: { readonly companyNameEn: string };
  readonly currency: string;
  readonly lineItems: readonly LineItemView[];
  readonly totalAmount: number | null;
  readonly documentUrls: readonly DocumentUrlView[];
}

export interface InvoiceView extends ReceiptView {
  readonly dueDate: string | null;
}

/** Makes a document's URL: a new token under `baseUrl`/sandbox/documents/. */
export type LinkDocument = (document: StoredDocument) => DocumentLink;

export function receiptView(record: BillingRecord, companyNameEn: string, baseUrl: string, link: LinkDocument): ReceiptView {
  return {
    id: record.id,
    reference: record.reference ?? null,
    endUserId: record.endUserId,
    senderId: record.senderId,
    createdAtUtc: new Date(record.createdMs).toISOString(),
    sender: { companyNameEn },
    currency: record.currency,
    lineItems: record.lineItems.map((i) => ({
      description: i.description,
      quantity: decimalNumber(i.quantity),
      unitPrice: decimalNumber(i.unitPrice),
      amount: decimalNumber(i.amount),
    })),
    totalAmount: record.totalAmount === undefined ? null : decimalNumber(record.totalAmount),
    documentUrls: record.documents.map((document) => {
      const { token, expiresMs } = link(document);
      return {
        fileName: document.fileName,
        mimeType: document.mimeType,
        url: `${baseUrl}/sandbox/documents/${token}`,
        expiresAt: new Date(expiresMs).toISOString(),
      };
    }),
  };
}

export function invoiceView(record: BillingRecord, companyNameEn: string, baseUrl: string, link: LinkDocument): InvoiceView {
  return { ...receiptView(record, companyNameEn, baseUrl, link), dueDate: record.dueDate ?? null };
}
