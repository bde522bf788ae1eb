// POST /letters, behind a valid X-Session. The contract lists the endpoint but does not show its
// request or answer; the sandbox reads it as "create a new letter": the body of PUT /letters/draft
// without `id` (an `id` is refused: updating is PUT /letters/draft), a new Draft, and the same
// answer {id, status, title, sender}.
import type { FastifyPluginAsync } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import { letterBodySchema, parseOrThrow } from './schemas.js';
import { sessionGuard } from './session-guard.js';
import type { SandboxStore } from './store.js';
import { summaryView } from './views.js';

export function letterCreateRoutes(store: SandboxStore): FastifyPluginAsync {
  return async (scope) => {
    const guard = sessionGuard(store);
    scope.addHook('onRequest', guard.hook);

    scope.post('/letters', async (request) => {
      const senderId = guard.senderOf(request);
      const body = parseOrThrow(letterBodySchema, request.body, 'letter');
      if (body.id !== undefined) {
        throw new SandboxApiError(
          'InvalidData',
          'invalid letter: id: POST /api/v1/letters creates a new letter; update a draft with PUT /api/v1/letters/draft',
        );
      }
      const letter = store.letters.saveDraft(senderId, body);
      request.log.info({ letterId: letter.id, status: letter.status }, 'sandbox letter created');
      return summaryView(letter, store.companyName(senderId));
    });
  };
}
