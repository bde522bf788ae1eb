// Any error a request ends with → the envelope the sandbox answers (pure). Faults in the
// sandbox itself become `500 UnexpectedError` with no detail: never a stack trace.
import { type ErrorEnvelope, envelope, SandboxApiError } from './error-codes.js';

export const BODY_LIMIT_BYTES = 20 * 1024 * 1024;
/** fastify's router limit on one path parameter (its default, written out so the message can name it). */
export const MAX_PARAM_CHARS = 100;

const FRAMEWORK_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'the request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty',
  FST_ERR_CTP_BODY_TOO_LARGE: `the request body is larger than ${BODY_LIMIT_BYTES} bytes`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported Content-Type: send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_BAD_URL: 'the URL is not valid (broken percent-encoding)',
  FST_ERR_MAX_PARAM_LENGTH: `a path segment is longer than ${MAX_PARAM_CHARS} characters`,
};

export function errorAnswer(error: unknown, traceId: string): ErrorEnvelope {
  if (error instanceof SandboxApiError) return envelope(error.statusCode, error.errorCode, error.message, traceId);
  const framework = frameworkError(error);
  if (framework !== undefined && framework.statusCode >= 400 && framework.statusCode < 500) {
    const message = FRAMEWORK_MESSAGES[framework.code] ?? 'the request is malformed';
    return envelope(400, 'InvalidData', message, traceId);
  }
  return envelope(500, 'UnexpectedError', `an unexpected error occurred; quote trace id ${traceId}`, traceId);
}

/** fastify's own errors carry a string `code` and a numeric `statusCode`. */
function frameworkError(error: unknown): { code: string; statusCode: number } | undefined {
  if (!(error instanceof Error) || !('code' in error) || !('statusCode' in error)) return undefined;
  const { code, statusCode } = error;
  return typeof code === 'string' && typeof statusCode === 'number' ? { code, statusCode } : undefined;
}
