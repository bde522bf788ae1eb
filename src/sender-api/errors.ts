// The one error the Sender API client throws for a failed call. `kind` is what the caller acts on:
//   retryable: try again later (backoff, honour retryAfterMs)
//   permanent: the API refused this request; the same request will always fail (reject the intake)
//   operator:  credentials, permissions or network allow-list: a person must act (fail + alert)
// A call aborted by the caller's own signal is not a SenderApiError: the abort reason is rethrown.

export type FailureKind = 'retryable' | 'permanent' | 'operator';

export interface SenderApiErrorInit {
  readonly kind: FailureKind;
  /** Templated endpoint, e.g. "GET /api/v1/letters/{id}". */
  readonly endpoint: string;
  readonly statusCode: number | undefined;
  readonly errorCode: string | undefined;
  readonly traceId: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** The API's own message (the envelope's `message`), when it sent one. */
  readonly apiMessage: string | undefined;
  /** What happened when there was no API answer ("timed out after 30000 ms", "connection refused"). */
  readonly reason?: string;
}

export class SenderApiError extends Error {
  override readonly name = 'SenderApiError';
  readonly kind: FailureKind;
  readonly endpoint: string;
  readonly statusCode: number | undefined;
  readonly errorCode: string | undefined;
  readonly traceId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly apiMessage: string | undefined;

  constructor(init: SenderApiErrorInit, options?: { cause?: unknown }) {
    const what = init.statusCode === undefined ? (init.reason ?? 'no answer') : `${init.statusCode} ${init.errorCode ?? '(no error code)'}`;
    super(`${init.endpoint}: ${what}${init.apiMessage === undefined ? '' : `: ${init.apiMessage}`}`, options);
    this.kind = init.kind;
    this.endpoint = init.endpoint;
    this.statusCode = init.statusCode;
    this.errorCode = init.errorCode;
    this.traceId = init.traceId;
    this.retryAfterMs = init.retryAfterMs;
    this.apiMessage = init.apiMessage;
  }
}

/** A bad client configuration (the base URL); the message names the variable to fix. */
export class SenderApiConfigError extends Error {
  override readonly name = 'SenderApiConfigError';
}
