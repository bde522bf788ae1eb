// POST /api/v1/auth/login/api and POST /api/v1/auth/refresh.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { type ContractDialect, refuseSession } from './contract-mode.js';
import { readCredentials } from './credentials.js';
import { SandboxApiError } from './error-codes.js';
import { headerText } from './headers.js';
import { isIpAllowed } from './ip-allow-list.js';
import type { SandboxStore } from './store.js';

export function authRoutes(store: SandboxStore, dialect: ContractDialect): FastifyPluginAsync {
  return async (scope) => {
    scope.post('/auth/login/api', async (request) => {
      const credentials = readCredentials({
        clientIdHeader: headerText(request.headers['x-api-client-id']),
        clientSecretHeader: headerText(request.headers['x-api-client-secret']),
        contentLength: headerText(request.headers['content-length']),
        transferEncoding: headerText(request.headers['transfer-encoding']),
        body: request.body,
      });
      const sender = store.directory.byClientId(credentials.apiClientId);
      if (sender === undefined || !sameSecret(sender.apiClientSecret, credentials.apiClientSecret)) {
        throw new SandboxApiError('InvalidCredentials', 'the API client id or secret is wrong');
      }
      if (!isIpAllowed(request.ip, sender.allowedIps)) {
        throw new SandboxApiError('IpAddressUnauthorized', `calls from ${request.ip} are not allowed for this API client`);
      }
      const session = store.sessions.login(sender.senderId);
      request.log.info({ senderId: sender.senderId }, 'sandbox login');
      return dialect.loginAnswer(session);
    });

    scope.post('/auth/refresh', async (request, reply) => {
      const sessionId = headerText(request.headers['x-session']);
      const next = sessionId === undefined ? undefined : store.sessions.refresh(sessionId);
      if (next === undefined) return refuseSession(dialect, reply);
      request.log.info({ senderId: next.senderId }, 'sandbox session refreshed');
      return dialect.refreshAnswer(next);
    });
  };
}

/** Constant-time comparison (hashing first makes the lengths equal). */
function sameSecret(expected: string, given: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(given));
}
