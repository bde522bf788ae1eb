// The operator and test surface under /sandbox/ (no session, no authentication: bind the
// sandbox to loopback). Letter moves, a list of every letter, fault injection, holds, session reset.
import type { FastifyPluginAsync } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import { holdSchema, parseOrThrow } from './schemas.js';
import type { SandboxStore } from './store.js';
import type { OperatorLetterView } from './views.js';

export function operatorRoutes(store: SandboxStore): FastifyPluginAsync {
  const moves: Readonly<Record<string, (id: string) => OperatorLetterView>> = {
    approve: (id) => store.approve(id),
    reject: (id) => store.reject(id),
    'start-sending': (id) => store.startSending(id),
    'mark-sent': (id) => store.markSent(id),
  };

  return async (scope) => {
    scope.get('/letters', async () => ({ items: store.allLetters() }));

    scope.post<{ Params: { id: string; action: string } }>('/letters/:id/:action', async (request) => {
      const move = Object.hasOwn(moves, request.params.action) ? moves[request.params.action] : undefined;
      if (move === undefined) {
        throw new SandboxApiError(
          'EntityNotFound',
          `no operator action ${request.params.action}; use approve, reject, start-sending or mark-sent`,
        );
      }
      const letter = move(request.params.id);
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox operator move');
      return letter;
    });

    scope.post('/faults', async (request, reply) => {
      store.faults.addJson(request.body);
      return reply.code(201).send({ pendingCalls: store.faults.pendingCount() });
    });

    scope.delete('/faults', async (_request, reply) => {
      store.clearFaults();
      return reply.code(204).send();
    });

    scope.post('/holds', async (request, reply) => {
      store.holds.add(parseOrThrow(holdSchema, request.body, 'hold'));
      return reply.code(201).send({ held: store.holds.heldCount });
    });

    scope.get('/holds', async () => ({ held: store.holds.heldCount }));

    scope.delete('/holds', async (_request, reply) => {
      store.holds.release();
      return reply.code(204).send();
    });

    scope.delete('/sessions', async (_request, reply) => {
      store.forgetSessions();
      return reply.code(204).send();
    });
  };
}
