// What the sandbox answers to the HTTP parser's refusals, code by code (pure).
import { describe, expect, it } from 'vitest';
import { clientErrorAnswer } from '../../src/sandbox/client-errors.js';

describe('clientErrorAnswer', () => {
  it.each([
    ['HPE_INVALID_METHOD', 400, 'InvalidData'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'InvalidData'],
    ['HPE_HEADER_OVERFLOW', 400, 'InvalidData'],
    [undefined, 400, 'InvalidData'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'RequestTimeout'],
  ] as const)('answers %s with %i %s', (code, statusCode, errorCode) => {
    expect(clientErrorAnswer(code, 'trace-1')).toEqual({ message: expect.any(String), statusCode, errorCode, traceId: 'trace-1' });
  });

  it.each(['ECONNRESET', 'EPIPE'])('answers nothing to %s: the peer is gone', (code) => {
    expect(clientErrorAnswer(code, 'trace-1')).toBeUndefined();
  });
});
