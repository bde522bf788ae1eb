// Which Sender API answers reject the intake (the sender is told the letter was refused) and which
// fail it for an operator: only InvalidData on a call that carries the letter is about the letter.
import { describe, expect, it } from 'vitest';
import { type FailureKind, SenderApiError } from '../../src/sender-api/index.js';
import { describeFailure } from '../../src/worker/failure.js';

const apiError = (endpoint: string, kind: FailureKind, statusCode: number | undefined, errorCode: string | undefined) =>
  new SenderApiError({ kind, endpoint, statusCode, errorCode, traceId: undefined, retryAfterMs: undefined, apiMessage: undefined });

describe('a Sender API answer seen by the worker', () => {
  it.each([
    ['PUT /api/v1/letters/draft', 'permanent', 400, 'InvalidData', true],
    ['POST /api/v1/letters/submit', 'permanent', 400, 'InvalidData', true],
    ['POST /api/v1/auth/login/api', 'permanent', 400, 'InvalidData', false],
    ['GET /api/v1/letters/{id}', 'permanent', 400, 'InvalidData', false],
    ['GET /api/v1/letters', 'permanent', 400, 'InvalidData', false],
    ['PUT /api/v1/letters/draft', 'permanent', 404, 'EntityNotFound', false],
    ['GET /api/v1/letters/{id}', 'permanent', 404, 'EntityNotFound', false],
    ['POST /api/v1/auth/login/api', 'permanent', 404, undefined, false],
    ['PUT /api/v1/letters/draft', 'permanent', 302, undefined, false],
    ['PUT /api/v1/letters/draft', 'permanent', 413, undefined, false],
    ['PUT /api/v1/letters/draft', 'retryable', 503, 'ServiceUnavailable', false],
    ['PUT /api/v1/letters/draft', 'operator', 401, 'InvalidCredentials', false],
  ] as const)('%s answered %s %s %s: refuses the letter: %s', (endpoint, kind, status, code, refuses) => {
    expect(describeFailure(apiError(endpoint, kind, status, code)).refusesLetter).toBe(refuses);
  });

  it('is not a refusal of the letter when it is no API answer at all', () => {
    expect(describeFailure(new Error('Redis went away')).refusesLetter).toBe(false);
  });
});
