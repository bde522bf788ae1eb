// What the sandbox answers for a receipt (the contract's §2.2 response) and an invoice (§2.5):
// exactly the contract's fields in its order, every one present; a value the request did not
// give is null; stored values as sent. A receipt's documents each get a fresh URL with its expiry.
import type { LineItem } from './billing-schemas.js';
import type { InvoiceRecord, ReceiptRecord } from './billing-store.js';
import type { DocumentLink, StoredDocument } from './document-store.js';

export interface DocumentUrlView {
  readonly url: string;
  readonly expiresAt: string;
}

export interface LineItemView {
  readonly description: string;
  readonly quantity: number;
  readonly unit: string | null;
  readonly unitPrice: number | null;
  readonly totalAmount: number | null;
  readonly vatPercentage: number | null;
  readonly vatAmount: number | null;
  readonly category: string | null;
  readonly productCode: string | null;
}

export interface ReceiptView {
  readonly id: string;
  readonly endUserId: string;
  readonly senderId: string;
  readonly reference: string;
  readonly transactionDateUtc: string | null;
  readonly subtotal: number | null;
  readonly vatAmount: number | null;
  readonly totalAmount: number | null;
  readonly currency: string;
  readonly paymentMethod: string | null;
  readonly cardLastFourDigits: string | null;
  readonly storeName: string | null;
  readonly storeAddress: string | null;
  readonly lineItems: readonly LineItemView[];
  readonly createdAtUtc: string;
  readonly sender: { readonly companyNameEn: string };
  readonly documentUrls: readonly DocumentUrlView[];
}

export interface InvoiceView {
  readonly id: string;
  readonly endUserIdpId: string | null;
  readonly senderId: string;
  readonly generatedAtUtc: string | null;
  readonly sentUtc: string;
  readonly amount: number | null;
  readonly currency: string;
  readonly dueDateUtc: string | null;
  readonly payable: boolean | null;
  readonly reference: string | null;
}

/** Makes a document's URL: a new token under `baseUrl`/sandbox/documents/. */
export type LinkDocument = (document: StoredDocument) => DocumentLink;

export function receiptView(record: ReceiptRecord, companyNameEn: string, baseUrl: string, link: LinkDocument): ReceiptView {
  const r = record.body;
  return {
    id: record.id,
    endUserId: record.endUserId,
    senderId: record.senderId,
    reference: r.reference,
    transactionDateUtc: r.transactionDateUtc ?? null,
    subtotal: r.subtotal ?? null,
    vatAmount: r.vatAmount ?? null,
    totalAmount: r.totalAmount ?? null,
    currency: r.currency,
    paymentMethod: r.paymentMethod ?? null,
    cardLastFourDigits: r.cardLastFourDigits ?? null,
    storeName: r.storeName ?? null,
    storeAddress: r.storeAddress ?? null,
    lineItems: (r.lineItems ?? []).map(lineItemView),
    createdAtUtc: new Date(record.createdMs).toISOString(),
    sender: { companyNameEn },
    documentUrls: record.documents.map((document) => {
      const { token, expiresMs } = link(document);
      return { url: `${baseUrl}/sandbox/documents/${token}`, expiresAt: new Date(expiresMs).toISOString() };
    }),
  };
}

function lineItemView(item: LineItem): LineItemView {
  return {
    description: item.description,
    quantity: item.quantity,
    unit: item.unit ?? null,
    unitPrice: item.unitPrice ?? null,
    totalAmount: item.totalAmount ?? null,
    vatPercentage: item.vatPercentage ?? null,
    vatAmount: item.vatAmount ?? null,
    category: item.category ?? null,
    productCode: item.productCode ?? null,
  };
}

/** `sentUtc`: an invoice goes to its end user when it is created (the contract shows no approval step for it). */
export function invoiceView(record: InvoiceRecord): InvoiceView {
  const i = record.body;
  return {
    id: record.id,
    endUserIdpId: i.endUserIdpId ?? null,
    senderId: record.senderId,
    generatedAtUtc: i.generatedAtUtc ?? null,
    sentUtc: new Date(record.createdMs).toISOString(),
    amount: i.amount ?? null,
    currency: i.currency,
    dueDateUtc: i.dueDateUtc ?? null,
    payable: i.payable ?? null,
    reference: i.reference ?? null,
  };
}
