// Receipts and invoices, behind a valid X-Session: POST /receipts, POST /invoices, GET /invoices/{id}.
// A receipt's answer carries fresh document URLs (under /sandbox/documents/, outside /api/v1).
// Amounts that do not add up are stored as sent and logged as a warning, never refused.
import type { FastifyPluginAsync } from 'fastify';
import { receiptAmountFindings } from './billing-consistency.js';
import { invoiceBodySchema, receiptBodySchema } from './billing-schemas.js';
import { invoiceView, receiptView } from './billing-views.js';
import { parseOrThrow } from './schemas.js';
import { sessionGuard } from './session-guard.js';
import type { SandboxStore } from './store.js';

export function billingRoutes(store: SandboxStore): FastifyPluginAsync {
  return async (scope) => {
    const guard = sessionGuard(store);
    scope.addHook('onRequest', guard.hook);

    scope.post('/receipts', async (request) => {
      const body = parseOrThrow(receiptBodySchema, request.body, 'receipt');
      const record = store.billing.createReceipt(guard.senderOf(request), body);
      request.log.info({ receiptId: record.id, endUserId: record.endUserId }, 'sandbox receipt created');
      const findings = receiptAmountFindings(body);
      if (findings.length > 0)
        request.log.warn({ receiptId: record.id, findings }, 'sandbox receipt amounts do not add up (stored as sent)');
      const base = `${request.protocol}://${request.host}`;
      return receiptView(record, store.companyName(record.senderId), base, (document) => store.documents.link(document));
    });

    scope.post('/invoices', async (request) => {
      const body = parseOrThrow(invoiceBodySchema, request.body, 'invoice');
      const record = store.billing.createInvoice(guard.senderOf(request), body);
      request.log.info({ invoiceId: record.id, endUserId: record.endUserId }, 'sandbox invoice created');
      return invoiceView(record);
    });

    scope.get<{ Params: { id: string } }>('/invoices/:id', async (request) =>
      invoiceView(store.billing.invoice(guard.senderOf(request), request.params.id)),
    );
  };
}
