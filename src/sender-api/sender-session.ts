// One sender's view of the Sender API: its session (logged in by headers with no body, cached,
// refreshed before it expires, replaced once on 401 InvalidSession) and the letter calls.
// Concurrent calls share one login or refresh (single-flight).
import type { z } from 'zod';
import type { Logger } from '../log.js';
import { untilAborted } from './abort.js';
import { SenderApiError } from './errors.js';
import { sessionAction } from './session-policy.js';
import { type ApiRequest, callApi, type TransportDeps } from './transport.js';
import {
  type ApiSession,
  type LetterInput,
  type LetterPage,
  type LetterSummary,
  type LetterView,
  letterPageSchema,
  letterSummarySchema,
  letterViewSchema,
  sessionSchema,
} from './wire.js';

export interface SenderCredentials {
  readonly senderId: string;
  readonly apiClientId: string;
  readonly apiClientSecret: string;
}

export interface CallOptions {
  /** Aborting it rejects the call with the signal's reason (not a SenderApiError). */
  readonly signal?: AbortSignal;
}

export interface ListQuery {
  readonly status?: string;
  readonly page?: number;
  readonly pageSize?: number;
}

export interface SessionDeps extends TransportDeps {
  readonly refreshMarginMs: number;
}

/** The calls that carry a letter: only their `InvalidData` says the letter itself is invalid. */
export const LETTER_ENDPOINTS = { saveDraft: 'PUT /api/v1/letters/draft', submit: 'POST /api/v1/letters/submit' } as const;

export class SenderSession {
  #session: ApiSession | undefined;
  #pending: Promise<ApiSession> | undefined;
  readonly #log: Logger;

  constructor(
    private readonly deps: SessionDeps,
    private readonly credentials: SenderCredentials,
  ) {
    this.#log = deps.logger.child({ senderId: credentials.senderId });
  }

  /** Any other call behind this sender's session, with the same re-login on a 401 (documents.ts). */
  callWithSession<T>(request: Omit<ApiRequest, 'headers' | 'signal'>, schema: z.ZodType<T>, options: CallOptions = {}): Promise<T> {
    return this.#withSession(request, schema, options.signal);
  }

  /** Logs in now (sharing a login already under way) and caches the session. */
  login(options: CallOptions = {}): Promise<ApiSession> {
    return this.#renew('login', options.signal);
  }

  /** Refreshes the cached session now (logs in when there is none). */
  refresh(options: CallOptions = {}): Promise<ApiSession> {
    return this.#renew(this.#session === undefined ? 'login' : 'refresh', options.signal);
  }

  saveDraft(letter: LetterInput, options: CallOptions = {}): Promise<LetterSummary> {
    const request = { method: 'PUT', path: '/api/v1/letters/draft', endpoint: LETTER_ENDPOINTS.saveDraft, body: letter } as const;
    return this.#withSession(request, letterSummarySchema, options.signal);
  }

  submit(letter: LetterInput, options: CallOptions = {}): Promise<LetterSummary> {
    const request = { method: 'POST', path: '/api/v1/letters/submit', endpoint: LETTER_ENDPOINTS.submit, body: letter } as const;
    return this.#withSession(request, letterSummarySchema, options.signal);
  }

  getLetter(id: string, options: CallOptions = {}): Promise<LetterView> {
    const request = { method: 'GET', path: `/api/v1/letters/${encodeURIComponent(id)}`, endpoint: 'GET /api/v1/letters/{id}' } as const;
    return this.#withSession(request, letterViewSchema, options.signal);
  }

  listLetters(query: ListQuery = {}, options: CallOptions = {}): Promise<LetterPage> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set('status', query.status);
    if (query.page !== undefined) params.set('page', String(query.page));
    if (query.pageSize !== undefined) params.set('pageSize', String(query.pageSize));
    const search = params.size === 0 ? '' : `?${params.toString()}`;
    const request = { method: 'GET', path: `/api/v1/letters${search}`, endpoint: 'GET /api/v1/letters' } as const;
    return this.#withSession(request, letterPageSchema, options.signal);
  }

  /** Runs a call with a valid session; on 401 InvalidSession logs in again once and retries once. */
  async #withSession<T>(request: ApiRequest, schema: z.ZodType<T>, signal: AbortSignal | undefined): Promise<T> {
    const send = (session: ApiSession): Promise<T> =>
      callApi(this.deps, { ...request, signal, headers: { 'x-session': session.sessionId } }, schema);
    const session = await this.#current(signal);
    try {
      return await send(session);
    } catch (err) {
      if (!(err instanceof SenderApiError) || err.errorCode !== 'InvalidSession') throw err;
      this.#log.info({ endpoint: request.endpoint }, 'sender api session was refused; logging in again');
      return send(await this.#replace(session, signal));
    }
  }

  async #current(signal: AbortSignal | undefined): Promise<ApiSession> {
    if (this.#pending !== undefined) return untilAborted(this.#pending, signal);
    const action = sessionAction(this.#session, this.deps.clock(), this.deps.refreshMarginMs);
    if (action === 'use' && this.#session !== undefined) return this.#session;
    return this.#renew(action === 'refresh' ? 'refresh' : 'login', signal);
  }

  /** After `stale` was refused: a newer session someone else got, or a fresh login. */
  #replace(stale: ApiSession, signal: AbortSignal | undefined): Promise<ApiSession> {
    if (this.#session !== undefined && this.#session !== stale) return Promise.resolve(this.#session);
    this.#session = undefined;
    return this.#renew('login', signal);
  }

  #renew(kind: 'login' | 'refresh', signal: AbortSignal | undefined): Promise<ApiSession> {
    if (this.#pending === undefined) {
      const pending = (kind === 'login' ? this.#login() : this.#refreshOrKeep())
        .then((session) => {
          this.#session = session;
          return session;
        })
        .finally(() => {
          this.#pending = undefined;
        });
      pending.catch(() => undefined); // awaited by callers; a caller that gave up must not leave it unhandled
      this.#pending = pending;
    }
    return untilAborted(this.#pending, signal);
  }

  async #login(): Promise<ApiSession> {
    // Headers only, no body at all: the contract refuses headers together with a body.
    const session = await callApi(
      this.deps,
      {
        method: 'POST',
        path: '/api/v1/auth/login/api',
        endpoint: 'POST /api/v1/auth/login/api',
        headers: { 'x-api-client-id': this.credentials.apiClientId, 'x-api-client-secret': this.credentials.apiClientSecret },
      },
      sessionSchema,
    );
    this.#log.debug({ validUntilUtc: session.validUntilUtc }, 'sender api login');
    return toSession(session);
  }

  async #refreshOrKeep(): Promise<ApiSession> {
    const current = this.#session;
    if (current === undefined) return this.#login();
    try {
      const next = await callApi(
        this.deps,
        {
          method: 'POST',
          path: '/api/v1/auth/refresh',
          endpoint: 'POST /api/v1/auth/refresh',
          headers: { 'x-session': current.sessionId },
        },
        sessionSchema,
      );
      this.#log.debug({ validUntilUtc: next.validUntilUtc }, 'sender api session refreshed');
      return toSession(next);
    } catch (err) {
      if (err instanceof SenderApiError && err.errorCode === 'InvalidSession') return this.#login();
      // The refresh failed but the session has not expired yet: keep using it until it does.
      if (err instanceof SenderApiError && this.deps.clock() < current.validUntilMs) return current;
      throw err;
    }
  }
}

function toSession(s: { sessionId: string; senderId: string; validUntilUtc: string }): ApiSession {
  return { sessionId: s.sessionId, senderId: s.senderId, validUntilUtc: s.validUntilUtc, validUntilMs: Date.parse(s.validUntilUtc) };
}
