// GET /sandbox/documents/{token}: a receipt's document while its URL lives (no
// session: the unguessable token is the permission, as with a pre-signed URL). Served with the
// type its bytes are; an unknown or expired token is 404 EntityNotFound.
import type { FastifyPluginAsync } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import type { SandboxStore } from './store.js';

export function documentRoutes(store: SandboxStore): FastifyPluginAsync {
  return async (scope) => {
    scope.get<{ Params: { token: string } }>('/documents/:token', async (request, reply) => {
      const document = store.documents.open(request.params.token);
      if (document === undefined) throw new SandboxApiError('EntityNotFound', 'no such document, or its URL has expired');
      return reply
        .type(document.mimeType)
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(document.fileName)}`)
        .header('cache-control', 'private, no-store')
        .send(document.bytes);
    });
  };
}
