// An errorCode from the API, or from a proxy in front of it, is any text: as a metric label and
// a Redis key only the contract's codes (and TooManyRequests) pass, anything else is HTTP<status>;
// the raw code stays in the log and the record, cut to 64 characters.
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { type FailureKind, SenderApiError } from '../../src/sender-api/index.js';
import { describeFailure } from '../../src/worker/failure.js';

const apiError = (kind: FailureKind, statusCode: number | undefined, errorCode: string | undefined) =>
  new SenderApiError({
    kind,
    endpoint: 'PUT /api/v1/letters/draft',
    statusCode,
    errorCode,
    traceId: undefined,
    retryAfterMs: undefined,
    apiMessage: 'refused',
  });

const CONTRACT_CODES = [
  'UnexpectedError',
  'ServiceUnavailable',
  'InvalidSession',
  'InvalidData',
  'EntityNotFound',
  'InvalidCredentials',
  'InsufficientAuthorization',
  'IpAddressUnauthorized',
  'ApiClientIdRequired',
  'ApiClientSecretRequired',
];

describe('an errorCode as the worker records it', () => {
  it.each([...CONTRACT_CODES, 'TooManyRequests'])('keeps the known code %s as it is', (code) => {
    expect(describeFailure(apiError('permanent', 400, code)).code).toBe(code);
  });

  it('records an unknown code as HTTP<status>, with the raw code cut to 64 characters in the reason', () => {
    const raw = `Proxy${'x'.repeat(10_000)}`;
    const failure = describeFailure(apiError('permanent', 418, raw));
    expect(failure.code).toBe('HTTP418');
    expect(failure.message).toContain(raw.slice(0, 64));
    expect(failure.message).not.toContain(raw.slice(0, 65));
  });

  it('says NetworkError when nothing answered, and HTTP<status> for an answer without a code', () => {
    expect(describeFailure(apiError('retryable', undefined, undefined)).code).toBe('NetworkError');
    expect(describeFailure(apiError('permanent', 404, undefined)).code).toBe('HTTP404');
  });
});

describe('an errorCode as a metric label', () => {
  it('labels a Sender API call with an unknown code by its status', async () => {
    const { registry, observer } = createMetrics();
    observer.apiCall('PUT /api/v1/letters/draft', 502, `Gateway-${'y'.repeat(500)}`, 0.1);
    observer.apiCall('PUT /api/v1/letters/draft', 400, 'InvalidData', 0.1);
    const text = await registry.metrics();
    expect(text).toContain('errorCode="HTTP502"');
    expect(text).toContain('errorCode="InvalidData"');
    expect(text).not.toContain('Gateway-');
  });
});
