import { describe, expect, it } from 'vitest';
import { type ApiFailure, classifyApiFailure, MAX_RETRY_AFTER_MS, parseRetryAfterMs } from '../../src/sender-api/classify.js';
import type { FailureKind } from '../../src/sender-api/errors.js';

describe('classifyApiFailure', () => {
  const table: ReadonlyArray<readonly [string, FailureKind, ApiFailure]> = [
    ['a network error', 'retryable', { network: true }],
    ['a time-out', 'retryable', { timeout: true }],
    ['a 2xx answer that breaks the contract', 'retryable', { status: 200, malformed: true }],
    ['500 UnexpectedError', 'retryable', { status: 500, errorCode: 'UnexpectedError' }],
    ['503 ServiceUnavailable', 'retryable', { status: 503, errorCode: 'ServiceUnavailable' }],
    ['429 with any code', 'retryable', { status: 429, errorCode: 'InvalidData' }],
    ['429 without a code', 'retryable', { status: 429 }],
    ['401 InvalidSession after a fresh login', 'retryable', { status: 401, errorCode: 'InvalidSession' }],
    ['400 InvalidData', 'permanent', { status: 400, errorCode: 'InvalidData' }],
    ['404 EntityNotFound', 'permanent', { status: 404, errorCode: 'EntityNotFound' }],
    ['401 InvalidCredentials', 'operator', { status: 401, errorCode: 'InvalidCredentials' }],
    ['403 InsufficientAuthorization', 'operator', { status: 403, errorCode: 'InsufficientAuthorization' }],
    ['403 IpAddressUnauthorized', 'operator', { status: 403, errorCode: 'IpAddressUnauthorized' }],
    ['400 ApiClientIdRequired', 'operator', { status: 400, errorCode: 'ApiClientIdRequired' }],
    ['400 ApiClientSecretRequired', 'operator', { status: 400, errorCode: 'ApiClientSecretRequired' }],
    ['an unknown code on a 502', 'retryable', { status: 502, errorCode: 'BadGateway' }],
    ['a 504 without a body', 'retryable', { status: 504 }],
    ['an unknown code on a 409', 'permanent', { status: 409, errorCode: 'Conflict' }],
    ['a 422 without a body', 'permanent', { status: 422 }],
    ['a redirect', 'permanent', { status: 302 }],
    ['408 Request Timeout', 'retryable', { status: 408 }],
    ['a code that is an Object prototype key', 'permanent', { status: 400, errorCode: 'constructor' }],
  ];

  it.each(table)('treats %s as %s', (_name, kind, failure) => {
    expect(classifyApiFailure(failure).kind).toBe(kind);
  });

  it('turns Retry-After seconds into milliseconds', () => {
    expect(classifyApiFailure({ status: 429, retryAfter: '7' })).toEqual({ kind: 'retryable', retryAfterMs: 7000 });
  });

  it("caps a Retry-After far in the future at MAX_RETRY_AFTER_MS, so one answer cannot hold its API's letters for long", () => {
    expect(MAX_RETRY_AFTER_MS).toBe(60_000);
    expect(classifyApiFailure({ status: 429, retryAfter: '999999999' }).retryAfterMs).toBe(60_000);
    expect(
      classifyApiFailure({ status: 503, retryAfter: 'Fri, 01 Jan 2100 00:00:00 GMT', nowMs: Date.parse('2026-11-02T09:00:00Z') })
        .retryAfterMs,
    ).toBe(60_000);
    expect(classifyApiFailure({ status: 429, retryAfter: '59' }).retryAfterMs).toBe(59_000);
  });

  it('gives no delay when there is no Retry-After', () => {
    expect(classifyApiFailure({ status: 503 }).retryAfterMs).toBeUndefined();
  });

  it('waits at least a second for a Retry-After of 0 or a date gone by, so a job does not go straight back', () => {
    expect(classifyApiFailure({ status: 429, retryAfter: '0' }).retryAfterMs).toBe(1000);
    const now = Date.parse('2026-11-02T09:00:00Z');
    expect(classifyApiFailure({ status: 503, retryAfter: 'Mon, 02 Nov 2026 08:59:00 GMT', nowMs: now }).retryAfterMs).toBe(1000);
  });

  it('reads a Retry-After only on a 429 or a 503: on any other answer it asks for no pause', () => {
    for (const status of [500, 502, 408, 401, 400]) expect(classifyApiFailure({ status, retryAfter: '30' }).retryAfterMs).toBeUndefined();
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-02T09:00:00Z');

  it.each([
    ['0', 0],
    [' 45 ', 45_000],
    ['Mon, 02 Nov 2026 09:00:30 GMT', 30_000],
    ['Mon, 02 Nov 2026 08:59:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
  ] as const)('reads %j as %s ms', (value, ms) => {
    expect(parseRetryAfterMs(value, now)).toBe(ms);
  });

  it('cannot turn an HTTP-date into a delay without knowing now', () => {
    expect(parseRetryAfterMs('Mon, 02 Nov 2026 09:00:30 GMT', undefined)).toBeUndefined();
  });
});
