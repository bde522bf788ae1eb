// Transient vs permanent vs operator, decided once for the Sender API boundary (pure).
import type { FailureKind } from './errors.js';

export interface ApiFailure {
  readonly status?: number | undefined;
  readonly errorCode?: string | undefined;
  /** No HTTP answer: connection refused or reset, DNS, TLS. */
  readonly network?: true | undefined;
  /** Our own per-request time-out fired. */
  readonly timeout?: true | undefined;
  /** A 2xx answer whose body is not what the contract says. */
  readonly malformed?: true | undefined;
  /** The Retry-After header as sent: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
  readonly retryAfter?: string | undefined;
  /** Now, to turn an HTTP-date into a delay. */
  readonly nowMs?: number | undefined;
}

export interface FailureClass {
  readonly kind: FailureKind;
  readonly retryAfterMs: number | undefined;
}

/** The API's error codes. Codes not listed fall back to the status (5xx retryable, 4xx permanent). */
export const KIND_BY_ERROR_CODE: Readonly<Record<string, FailureKind>> = {
  UnexpectedError: 'retryable',
  ServiceUnavailable: 'retryable',
  TooManyRequests: 'retryable',
  // Still invalid right after a fresh login (the client re-logs in once first): the API's problem.
  InvalidSession: 'retryable',
  InvalidData: 'permanent',
  EntityNotFound: 'permanent',
  InvalidCredentials: 'operator',
  InsufficientAuthorization: 'operator',
  IpAddressUnauthorized: 'operator',
  // The directory lacks a client id or secret: configuration, not the letter.
  ApiClientIdRequired: 'operator',
  ApiClientSecretRequired: 'operator',
};

/** The answers whose Retry-After asks for a pause (RFC 6585 §4, RFC 9110 §10.2.3); elsewhere it is ignored. */
const PAUSE_STATUSES: ReadonlySet<number | undefined> = new Set([429, 503]);

/** The shortest pause honoured: a Retry-After of 0 (or a date gone by) would send the job straight back to the API. */
export const MIN_RETRY_AFTER_MS = 1000;

export function classifyApiFailure(failure: ApiFailure): FailureClass {
  const asked =
    failure.retryAfter === undefined || !PAUSE_STATUSES.has(failure.status)
      ? undefined
      : parseRetryAfterMs(failure.retryAfter, failure.nowMs);
  return { kind: kindOf(failure), retryAfterMs: asked === undefined ? undefined : Math.max(asked, MIN_RETRY_AFTER_MS) };
}

function kindOf(f: ApiFailure): FailureKind {
  if (f.network === true || f.timeout === true || f.malformed === true) return 'retryable';
  if (f.status === undefined) return 'retryable';
  if (f.status === 429) return 'retryable'; // RFC 6585 §4, whatever the code says
  const byCode = f.errorCode === undefined || !Object.hasOwn(KIND_BY_ERROR_CODE, f.errorCode) ? undefined : KIND_BY_ERROR_CODE[f.errorCode];
  if (byCode !== undefined) return byCode;
  if (f.status >= 500 || f.status === 408) return 'retryable';
  return 'permanent';
}

/**
 * The longest wait a Retry-After may ask for. It holds all of that API's letters (its circuit
 * holds them, worker/api-circuit.ts), so one answer saying "in a year" must not stop them for a
 * year; after the cap the call is tried again and a still-limited API says so again.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Retry-After → milliseconds from now (never negative, at most MAX_RETRY_AFTER_MS); undefined when unparseable. */
export function parseRetryAfterMs(value: string, nowMs: number | undefined): number | undefined {
  const ms = retryAfterMs(value, nowMs);
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}

function retryAfterMs(value: string, nowMs: number | undefined): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date always starts with a day name (IMF-fixdate, RFC 850 and asctime forms alike).
  if (nowMs === undefined || !/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
