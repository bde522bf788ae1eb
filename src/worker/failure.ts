// How the worker sees any error thrown while it works on an intake: one of three kinds
// (docs/design.md §3), with the API's errorCode and traceId when the Sender API answered. Anything that
// is not an API answer (Redis hiccup, a bug) is retryable: the attempt budget bounds it. Only an
// `InvalidData` answer to a call that carries the letter says the letter is invalid; any other
// refusal (a wrong URL, a proxy's page, a letter id the API no longer knows) is not the sender's.
import { LETTER_ENDPOINTS, SenderApiError } from '../sender-api/index.js';

const LETTER_CALLS: ReadonlySet<string> = new Set(Object.values(LETTER_ENDPOINTS));

export interface FailureView {
  readonly kind: 'retryable' | 'permanent' | 'operator';
  readonly code: string;
  readonly message: string;
  readonly traceId?: string | undefined;
  readonly retryAfterMs?: number | undefined;
  /** The API refused the letter itself as invalid: the intake is rejected, and the sender told why. */
  readonly refusesLetter: boolean;
}

export function describeFailure(err: unknown): FailureView {
  if (err instanceof SenderApiError) {
    return {
      kind: err.kind,
      code: err.errorCode ?? (err.statusCode === undefined ? 'NetworkError' : `HTTP${err.statusCode}`),
      message: err.apiMessage ?? err.message,
      traceId: err.traceId,
      retryAfterMs: err.retryAfterMs,
      refusesLetter: err.kind === 'permanent' && err.errorCode === 'InvalidData' && LETTER_CALLS.has(err.endpoint),
    };
  }
  return { kind: 'retryable', code: 'WorkerError', message: err instanceof Error ? err.message : String(err), refusesLetter: false };
}
