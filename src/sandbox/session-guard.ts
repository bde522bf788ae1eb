// The X-Session check for a route plugin (receipts, invoices, the letter create): an `onRequest`
// hook, so a call without a valid session is refused 401 InvalidSession before its body is read,
// and `senderOf` for the handlers.
import type { FastifyRequest } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import { headerText } from './headers.js';
import type { Session } from './sessions.js';
import type { SandboxStore } from './store.js';

export interface SessionGuard {
  readonly hook: (request: FastifyRequest) => Promise<void>;
  readonly senderOf: (request: FastifyRequest) => string;
}

export function sessionGuard(store: SandboxStore): SessionGuard {
  const sessions = new WeakMap<FastifyRequest, Session>();
  return {
    hook: async (request) => {
      const sessionId = headerText(request.headers['x-session']);
      const session = sessionId === undefined ? undefined : store.sessions.valid(sessionId);
      if (session === undefined) throw new SandboxApiError('InvalidSession', 'the X-Session header is missing, unknown or expired');
      sessions.set(request, session);
    },
    senderOf: (request) => {
      const session = sessions.get(request);
      if (session === undefined) throw new Error('route reached without a session');
      return session.senderId;
    },
  };
}
