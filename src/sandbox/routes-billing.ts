// Receipts and invoices, behind a valid X-Session: POST /receipts, POST /invoices, GET /invoices/{id}.
// Each answer carries fresh document URLs (under /sandbox/documents/, outside /api/v1).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { invoiceBodySchema, receiptBodySchema } from './billing-schemas.js';
import type { BillingRecord } from './billing-store.js';
import { invoiceView, receiptView } from './billing-views.js';
import { parseOrThrow } from './schemas.js';
import { sessionGuard } from './session-guard.js';
import type { SandboxStore } from './store.js';

export function billingRoutes(store: SandboxStore): FastifyPluginAsync {
  return async (scope) => {
    const guard = sessionGuard(store);
    scope.addHook('onRequest', guard.hook);

    const show = (request: FastifyRequest, record: BillingRecord) => {
      const base = `${request.protocol}://${request.host}`;
      const view = record.kind === 'invoice' ? invoiceView : receiptView;
      return view(record, store.companyName(record.senderId), base, (document) => store.documents.link(document));
    };

    scope.post('/receipts', async (request) => {
      const body = parseOrThrow(receiptBodySchema, request.body, 'receipt');
      const record = store.billing.create(guard.senderOf(request), { kind: 'receipt', ...body });
      request.log.info({ receiptId: record.id, endUserId: record.endUserId }, 'sandbox receipt created');
      return show(request, record);
    });

    scope.post('/invoices', async (request) => {
      const body = parseOrThrow(invoiceBodySchema, request.body, 'invoice');
      const record = store.billing.create(guard.senderOf(request), { kind: 'invoice', ...body });
      request.log.info({ invoiceId: record.id, endUserId: record.endUserId }, 'sandbox invoice created');
      return show(request, record);
    });

    scope.get<{ Params: { id: string } }>('/invoices/:id', async (request) =>
      show(request, store.billing.get(guard.senderOf(request), 'invoice', request.params.id)),
    );
  };
}
