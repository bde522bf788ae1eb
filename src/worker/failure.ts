// How the worker sees any error thrown while it works on an intake: one of three kinds
// (docs/design.md §3), with the API's errorCode and traceId when the Sender API answered. Anything that
// is not an API answer (Redis hiccup, a bug) is retryable: the attempt budget bounds it.
import { SenderApiError } from '../sender-api/index.js';

export interface FailureView {
  readonly kind: 'retryable' | 'permanent' | 'operator';
  readonly code: string;
  readonly message: string;
  readonly traceId?: string | undefined;
  readonly retryAfterMs?: number | undefined;
}

export function describeFailure(err: unknown): FailureView {
  if (err instanceof SenderApiError) {
    return {
      kind: err.kind,
      code: err.errorCode ?? (err.statusCode === undefined ? 'NetworkError' : `HTTP${err.statusCode}`),
      message: err.apiMessage ?? err.message,
      traceId: err.traceId,
      retryAfterMs: err.retryAfterMs,
    };
  }
  return { kind: 'retryable', code: 'WorkerError', message: err instanceof Error ? err.message : String(err) };
}
