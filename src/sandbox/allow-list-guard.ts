// The sender's IP allow-list on every /api/v1 call, not only at login: a session used from an
// address off its sender's `allowedIps` is refused with 403 IpAddressUnauthorized. The login
// checks the list itself (after the credentials, routes-auth.ts); a call without a valid session
// is left to its route, which answers 401 InvalidSession, so the session is judged first.
import type { FastifyRequest } from 'fastify';
import { SandboxApiError } from './error-codes.js';
import { headerText } from './headers.js';
import { isIpAllowed } from './ip-allow-list.js';
import type { SandboxStore } from './store.js';

const LOGIN_PATH = '/api/v1/auth/login/api';

/** An `onRequest` hook for the whole app; it only looks at /api/v1 calls that carry a valid session. */
export function allowListGuard(store: SandboxStore): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith('/api/v1/') || path === LOGIN_PATH) return;
    const sessionId = headerText(request.headers['x-session']);
    const session = sessionId === undefined ? undefined : store.sessions.valid(sessionId);
    if (session === undefined) return;
    const sender = store.directory.bySenderId(session.senderId);
    // A sender removed from the directory after its login has no list to be on.
    if (sender === undefined || !isIpAllowed(request.ip, sender.allowedIps)) {
      throw new SandboxApiError('IpAddressUnauthorized', `calls from ${request.ip} are not allowed for this API client`);
    }
  };
}
