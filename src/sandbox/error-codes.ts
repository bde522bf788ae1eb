// The Sender API's error catalog as the sandbox answers it: every error is the JSON envelope
// {message, statusCode, errorCode, traceId}, with statusCode equal to the HTTP status.

export const API_ERROR_STATUS = {
  InvalidData: 400,
  ApiClientIdRequired: 400,
  ApiClientSecretRequired: 400,
  InvalidCredentials: 401,
  InvalidSession: 401,
  InsufficientAuthorization: 403,
  IpAddressUnauthorized: 403,
  EntityNotFound: 404,
  TooManyRequests: 429,
  UnexpectedError: 500,
  ServiceUnavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ErrorEnvelope {
  readonly message: string;
  readonly statusCode: number;
  readonly errorCode: string;
  readonly traceId: string;
}

/** An error a sandbox handler throws on purpose; the server's error handler turns it into the envelope. */
export class SandboxApiError extends Error {
  override readonly name = 'SandboxApiError';
  readonly statusCode: number;

  constructor(
    readonly errorCode: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.statusCode = API_ERROR_STATUS[errorCode];
  }
}

export function envelope(statusCode: number, errorCode: string, message: string, traceId: string): ErrorEnvelope {
  return { message, statusCode, errorCode, traceId };
}

const DEFAULT_CODE_BY_STATUS: Readonly<Record<number, ApiErrorCode>> = {
  400: 'InvalidData',
  401: 'InvalidSession',
  403: 'InsufficientAuthorization',
  404: 'EntityNotFound',
  429: 'TooManyRequests',
  500: 'UnexpectedError',
  503: 'ServiceUnavailable',
};

/** The error code an injected fault answers with when none was given. */
export function defaultErrorCode(statusCode: number): string {
  return DEFAULT_CODE_BY_STATUS[statusCode] ?? (statusCode >= 500 ? 'UnexpectedError' : 'InvalidData');
}
