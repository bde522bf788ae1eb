// The letter endpoints, behind a valid X-Session: PUT /letters/draft, POST /letters/submit,
// GET /letters/{id}, GET /letters?page=&pageSize=&status=. The answers' shapes, the 401s and
// whether the listing exists are the contract mode's (contract-mode.ts).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type ContractDialect, refuseSession } from './contract-mode.js';
import { headerText } from './headers.js';
import { letterBodySchema, listQuerySchema, parseOrThrow } from './schemas.js';
import type { Session } from './sessions.js';
import type { SandboxStore } from './store.js';

export function letterRoutes(store: SandboxStore, dialect: ContractDialect): FastifyPluginAsync {
  return async (scope) => {
    const sessions = new WeakMap<FastifyRequest, Session>();
    const senderOf = (request: FastifyRequest): string => {
      const session = sessions.get(request);
      if (session === undefined) throw new Error('letter route reached without a session');
      return session.senderId;
    };

    // Before the body is read: a call without a valid session is refused without parsing 20 MiB.
    scope.addHook('onRequest', async (request, reply) => {
      const sessionId = headerText(request.headers['x-session']);
      const session = sessionId === undefined ? undefined : store.sessions.valid(sessionId);
      if (session === undefined) return refuseSession(dialect, reply);
      sessions.set(request, session);
    });

    scope.put('/letters/draft', async (request) => {
      const senderId = senderOf(request);
      const letter = store.letters.saveDraft(senderId, parseOrThrow(letterBodySchema, request.body, 'letter'));
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox draft saved');
      return dialect.summary(letter, store.companyName(senderId));
    });

    scope.post('/letters/submit', async (request) => {
      const senderId = senderOf(request);
      const letter = store.letters.submit(senderId, parseOrThrow(letterBodySchema, request.body, 'letter'));
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox letter submitted');
      return dialect.summary(letter, store.companyName(senderId));
    });

    scope.get<{ Params: { id: string } }>('/letters/:id', async (request) => {
      const senderId = senderOf(request);
      return dialect.letter(store.letters.get(senderId, request.params.id), store.companyName(senderId));
    });

    if (!dialect.lists) return; // GET /letters is then an unknown route: 404 EntityNotFound
    scope.get<{ Querystring: Record<string, unknown> }>('/letters', async (request) => {
      const senderId = senderOf(request);
      const query =
        typeof request.query.status === 'string' ? { ...request.query, status: dialect.statusFilter(request.query.status) } : request.query;
      const page = store.letters.list(senderId, parseOrThrow(listQuerySchema, query, 'query'));
      return dialect.listing(page, store.companyName(senderId));
    });
  };
}
