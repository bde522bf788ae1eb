// The sandbox Sender API as a fastify app: JSON in and out, the error envelope on every error
// path, fault injection in front of /api/v1, letters behind X-Session, operator routes under /sandbox.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from '../log.js';
import type { SenderDirectory } from '../senders/directory.js';
import { allowListGuard } from './allow-list-guard.js';
import { answerClientError, answerFrameworkError } from './client-errors.js';
import { type ContractMode, contractDialect } from './contract-mode.js';
import { BODY_LIMIT_BYTES, errorAnswer, MAX_PARAM_CHARS } from './error-answer.js';
import { envelope } from './error-codes.js';
import { authRoutes } from './routes-auth.js';
import { billingRoutes } from './routes-billing.js';
import { documentRoutes } from './routes-documents.js';
import { letterCreateRoutes } from './routes-letter-create.js';
import { letterRoutes } from './routes-letters.js';
import { operatorRoutes } from './routes-operator.js';
import { SandboxStore } from './store.js';

export interface SandboxDeps {
  readonly directory: SenderDirectory;
  /** Milliseconds since the epoch; sessions expire and letters are stamped on this clock. */
  readonly clock: () => number;
  readonly logger: Logger;
  /** The state to serve; a fresh, empty one when absent. */
  readonly store?: SandboxStore;
  /** Where the contract leaves a choice open, how to answer (SANDBOX_CONTRACT_MODE; default 'ours'): contract-mode.ts. */
  readonly contractMode?: ContractMode;
}

export function createSandboxServer(deps: SandboxDeps): FastifyInstance {
  const dialect = contractDialect(deps.contractMode ?? 'ours');
  const store = deps.store ?? new SandboxStore(deps.directory, deps.clock, dialect.sessionTtlMs);
  const loggerInstance: FastifyBaseLogger = deps.logger.child({ component: 'sandbox-api' });
  const app = Fastify({
    loggerInstance,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    // The request id is the envelope's traceId, so a log line and an error answer can be matched.
    logController: new LogController({ requestIdLogLabel: 'traceId' }),
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    // The HTTP layer's own refusals answer the envelope too (client-errors.ts).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError(loggerInstance),
  });

  // JSON only (any other Content-Type is 400 InvalidData). An empty body with Content-Type:
  // application/json is "no body", not an error (a login by headers may carry the header);
  // anything else goes through fastify's JSON parser with prototype-poisoning protection.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });

  app.setErrorHandler((error, request, reply) => {
    const answer = errorAnswer(error, request.id);
    if (answer.statusCode >= 500) request.log.error({ err: error, errorCode: answer.errorCode }, 'sandbox request failed');
    else request.log.info({ statusCode: answer.statusCode, errorCode: answer.errorCode }, 'sandbox request refused');
    return reply.code(answer.statusCode).send(answer);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return reply.code(404).send(envelope(404, 'EntityNotFound', `no such endpoint: ${request.method} ${path}`, request.id));
  });

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith('/api/v1/')) return;
    await store.holds.hold(request.method, path, 'before');
    const fault = store.faults.take(path);
    if (fault === undefined) return;
    request.log.info({ statusCode: fault.statusCode, errorCode: fault.errorCode }, 'sandbox injected fault');
    if (fault.retryAfterSeconds !== undefined) void reply.header('retry-after', String(fault.retryAfterSeconds));
    return reply.code(fault.statusCode).send(envelope(fault.statusCode, fault.errorCode, fault.message, request.id));
  });

  app.addHook('onRequest', allowListGuard(store));

  app.addHook('onSend', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith('/api/v1/')) await store.holds.hold(request.method, path, 'after');
  });

  void app.register(authRoutes(store, dialect), { prefix: '/api/v1' });
  void app.register(letterRoutes(store, dialect), { prefix: '/api/v1' });
  void app.register(letterCreateRoutes(store), { prefix: '/api/v1' });
  void app.register(billingRoutes(store), { prefix: '/api/v1' });
  void app.register(operatorRoutes(store), { prefix: '/sandbox' });
  void app.register(documentRoutes(store), { prefix: '/sandbox' });
  return app;
}
