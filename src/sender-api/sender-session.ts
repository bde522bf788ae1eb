// One sender's view of the Sender API: its session (logged in by headers with no body, cached,
// refreshed before it ends, replaced on a 401) and the letter calls. Concurrent calls share one
// login or refresh (single-flight). What the client reads of each answer, and what it leaves to
// the API, is in docs/sender-api-client.md.
import { z } from 'zod';
import type { Logger } from '../log.js';
import { untilAborted } from './abort.js';
import { SenderApiError } from './errors.js';
import { sessionAction, sessionEndMs } from './session-policy.js';
import { type ApiRequest, callApi, type TransportDeps } from './transport.js';
import {
  type ApiSession,
  type DraftAnswer,
  draftAnswerSchema,
  type LetterInput,
  type LetterPage,
  type LetterView,
  letterPageSchema,
  letterViewSchema,
  type SubmitAnswer,
  sessionAnswerSchema,
  statusOnlySchema,
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

  /** Saves a draft; its answer must carry the draft's `id` (else the call fails, retryable). */
  saveDraft(letter: LetterInput, options: CallOptions = {}): Promise<DraftAnswer> {
    const request = { method: 'PUT', path: '/api/v1/letters/draft', endpoint: LETTER_ENDPOINTS.saveDraft, body: letter } as const;
    return this.#withSession(request, draftAnswerSchema, options.signal);
  }

  /** Submits; any 2xx means submitted, whatever its body says (its `status` is passed on when readable). */
  async submit(letter: LetterInput, options: CallOptions = {}): Promise<SubmitAnswer> {
    const request = { method: 'POST', path: '/api/v1/letters/submit', endpoint: LETTER_ENDPOINTS.submit, body: letter } as const;
    const answer = await this.#withSession(request, z.unknown(), options.signal);
    return { status: statusOnlySchema.safeParse(answer).data?.status };
  }

  getLetter(id: string, options: CallOptions = {}): Promise<LetterView> {
    const request = { method: 'GET', path: `/api/v1/letters/${encodeURIComponent(id)}`, endpoint: 'GET /api/v1/letters/{id}' } as const;
    return this.#withSession(request, letterViewSchema, options.signal);
  }

  /**
   * One page of the sender's letters, or undefined when the 2xx answer is not a page the client
   * can read (the contract does not show the listing's shape: such an API cannot be searched).
   */
  async listLetters(query: ListQuery = {}, options: CallOptions = {}): Promise<LetterPage | undefined> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set('status', query.status);
    if (query.page !== undefined) params.set('page', String(query.page));
    if (query.pageSize !== undefined) params.set('pageSize', String(query.pageSize));
    const search = params.size === 0 ? '' : `?${params.toString()}`;
    const request = { method: 'GET', path: `/api/v1/letters${search}`, endpoint: 'GET /api/v1/letters' } as const;
    const answer = await this.#withSession(request, z.unknown(), options.signal);
    const page = letterPageSchema.safeParse(answer);
    if (!page.success) this.#log.info({ endpoint: request.endpoint }, 'sender api listing is not in a shape the client can search');
    return page.data;
  }

  /**
   * Runs a call with a valid session. On a 401 (with or without an error code: the contract's 401
   * is "invalid or expired session") it takes the sender's current session, or the one new login
   * shared by every call refused alike, and repeats the call once. A 401 to that repeat is
   * InvalidSession, retryable, and leads to no further login.
   */
  async #withSession<T>(request: ApiRequest, schema: z.ZodType<T>, signal: AbortSignal | undefined): Promise<T> {
    const send = (session: ApiSession): Promise<T> =>
      callApi(this.deps, { ...request, signal, headers: { 'x-session': session.sessionId } }, schema);
    const session = await this.#current(signal);
    try {
      return await send(session);
    } catch (err) {
      if (!isUnauthorized(err)) throw err;
      this.#log.info({ endpoint: request.endpoint }, 'sender api session was refused; logging in again');
    }
    // The login's own refusal (InvalidCredentials, say) stands as it is: only the repeat's 401 is InvalidSession.
    const fresh = await this.#replace(session, signal);
    try {
      return await send(fresh);
    } catch (err) {
      if (!isUnauthorized(err)) throw err;
      throw new SenderApiError(
        {
          kind: 'retryable',
          endpoint: err.endpoint,
          statusCode: err.statusCode,
          errorCode: err.errorCode ?? 'InvalidSession',
          traceId: err.traceId,
          retryAfterMs: err.retryAfterMs,
          apiMessage: err.apiMessage,
          reason: 'the session was refused again right after a new login',
        },
        { cause: err },
      );
    }
  }

  async #current(signal: AbortSignal | undefined): Promise<ApiSession> {
    if (this.#pending !== undefined) return untilAborted(this.#pending, signal);
    const action = sessionAction(this.#session, this.deps.clock(), this.deps.refreshMarginMs);
    if (action === 'use' && this.#session !== undefined) return this.#session;
    return this.#renew(action === 'refresh' ? 'refresh' : 'login', signal);
  }

  /** After `stale` was refused: a newer session someone else got, the login under way, or a fresh login. */
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
    const endpoint = 'POST /api/v1/auth/login/api';
    const requestedAt = this.deps.clock();
    // Headers only, no body at all: the contract refuses headers together with a body.
    const answer = await callApi(
      this.deps,
      {
        method: 'POST',
        path: '/api/v1/auth/login/api',
        endpoint,
        headers: { 'x-api-client-id': this.credentials.apiClientId, 'x-api-client-secret': this.credentials.apiClientSecret },
      },
      sessionAnswerSchema,
    );
    if (answer.isValid === false) {
      // A login that hands out an invalid session: no second login in this call, try later.
      const reason = 'the login answered a session with isValid: false';
      this.#log.warn({ endpoint, kind: 'retryable' }, reason);
      throw new SenderApiError({
        kind: 'retryable',
        endpoint,
        statusCode: undefined,
        errorCode: 'InvalidSession',
        traceId: undefined,
        retryAfterMs: undefined,
        apiMessage: undefined,
        reason,
      });
    }
    this.#log.debug({ validUntilUtc: answer.validUntilUtc }, 'sender api login');
    return toSession(answer, requestedAt);
  }

  async #refreshOrKeep(): Promise<ApiSession> {
    const current = this.#session;
    if (current === undefined) return this.#login();
    const requestedAt = this.deps.clock();
    try {
      const next = await callApi(
        this.deps,
        {
          method: 'POST',
          path: '/api/v1/auth/refresh',
          endpoint: 'POST /api/v1/auth/refresh',
          headers: { 'x-session': current.sessionId },
        },
        sessionAnswerSchema,
      );
      if (next.isValid === false) return this.#login();
      this.#log.debug({ validUntilUtc: next.validUntilUtc }, 'sender api session refreshed');
      return toSession(next, requestedAt);
    } catch (err) {
      // A 401 to the refresh: the session is gone; a new login, not a second refresh.
      if (isUnauthorized(err)) return this.#login();
      // The refresh failed but the session has not ended yet: keep using it until it does.
      if (err instanceof SenderApiError && this.deps.clock() < current.endsAtMs) return current;
      throw err;
    }
  }
}

function toSession(answer: { sessionId: string; validUntilUtc?: string | undefined }, requestedAtMs: number): ApiSession {
  return {
    sessionId: answer.sessionId,
    validUntilUtc: answer.validUntilUtc,
    endsAtMs: sessionEndMs(answer.validUntilUtc, requestedAtMs),
  };
}

function isUnauthorized(err: unknown): err is SenderApiError {
  return err instanceof SenderApiError && err.statusCode === 401;
}
