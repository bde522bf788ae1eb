// The letter endpoints, behind a valid X-Session: PUT /letters/draft, POST /letters/submit,
// GET /letters/{id}, GET /letters?page=&pageSize=&status=. In strict-contract mode only what the
// contract promises: GET /letters/{id} answers {id, status, title, sender}, and there is no listing.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import { headerText } from './headers.js';
import { letterBodySchema, listQuerySchema, parseOrThrow } from './schemas.js';
import type { Session } from './sessions.js';
import type { SandboxStore } from './store.js';
import { detailView, summaryView } from './views.js';

export function letterRoutes(store: SandboxStore, strictContract: boolean): FastifyPluginAsync {
  return async (scope) => {
    const sessions = new WeakMap<FastifyRequest, Session>();
    const senderOf = (request: FastifyRequest): string => {
      const session = sessions.get(request);
      if (session === undefined) throw new Error('letter route reached without a session');
      return session.senderId;
    };

    // Before the body is read: a call without a valid session is refused without parsing 20 MiB.
    scope.addHook('onRequest', async (request) => {
      const sessionId = headerText(request.headers['x-session']);
      const session = sessionId === undefined ? undefined : store.sessions.valid(sessionId);
      if (session === undefined) throw new SandboxApiError('InvalidSession', 'the X-Session header is missing, unknown or expired');
      sessions.set(request, session);
    });

    scope.put('/letters/draft', async (request) => {
      const senderId = senderOf(request);
      const letter = store.letters.saveDraft(senderId, parseOrThrow(letterBodySchema, request.body, 'letter'));
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox draft saved');
      return summaryView(letter, store.companyName(senderId));
    });

    scope.post('/letters/submit', async (request) => {
      const senderId = senderOf(request);
      const letter = store.letters.submit(senderId, parseOrThrow(letterBodySchema, request.body, 'letter'));
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox letter submitted');
      return summaryView(letter, store.companyName(senderId));
    });

    scope.get<{ Params: { id: string } }>('/letters/:id', async (request) => {
      const senderId = senderOf(request);
      const view = strictContract ? summaryView : detailView;
      return view(store.letters.get(senderId, request.params.id), store.companyName(senderId));
    });

    if (strictContract) return; // GET /letters is then an unknown route: 404 EntityNotFound
    scope.get('/letters', async (request) => {
      const senderId = senderOf(request);
      const page = store.letters.list(senderId, parseOrThrow(listQuerySchema, request.query, 'query'));
      const name = store.companyName(senderId);
      return { ...page, items: page.items.map((l) => detailView(l, name)) };
    });
  };
}
