// The receipt and invoice calls of the Sender API, for integrators: one sender's handle
// (`client.as(sender)`) in, typed calls out, each behind the sender's session with its re-login.
import {
  type InvoiceAnswer,
  type InvoiceInput,
  invoiceAnswerSchema,
  type ReceiptAnswer,
  type ReceiptInput,
  receiptAnswerSchema,
} from './documents-wire.js';
import type { CallOptions, SenderSession } from './sender-session.js';

export const DOCUMENT_ENDPOINTS = {
  createReceipt: 'POST /api/v1/receipts',
  createInvoice: 'POST /api/v1/invoices',
  getInvoice: 'GET /api/v1/invoices/{id}',
} as const;

export interface SenderDocuments {
  createReceipt(receipt: ReceiptInput, options?: CallOptions): Promise<ReceiptAnswer>;
  createInvoice(invoice: InvoiceInput, options?: CallOptions): Promise<InvoiceAnswer>;
  getInvoice(id: string, options?: CallOptions): Promise<InvoiceAnswer>;
}

export function senderDocuments(session: SenderSession): SenderDocuments {
  return {
    createReceipt: (receipt, options = {}) =>
      session.callWithSession(
        { method: 'POST', path: '/api/v1/receipts', endpoint: DOCUMENT_ENDPOINTS.createReceipt, body: receipt },
        receiptAnswerSchema,
        options,
      ),
    createInvoice: (invoice, options = {}) =>
      session.callWithSession(
        { method: 'POST', path: '/api/v1/invoices', endpoint: DOCUMENT_ENDPOINTS.createInvoice, body: invoice },
        invoiceAnswerSchema,
        options,
      ),
    getInvoice: (id, options = {}) =>
      session.callWithSession(
        { method: 'GET', path: `/api/v1/invoices/${encodeURIComponent(id)}`, endpoint: DOCUMENT_ENDPOINTS.getInvoice },
        invoiceAnswerSchema,
        options,
      ),
  };
}
