// How the worker sees any error thrown while it works on an intake: one of three kinds
// (docs/design.md §9), with the API's errorCode and traceId when the Sender API answered. Anything that
// is not an API answer (Redis hiccup, a bug) is retryable: the attempt budget bounds it. Only an
// `InvalidData` answer to a call that carries the letter says the letter is invalid; any other
// refusal (a wrong URL, a proxy's page, a letter id the API no longer knows) is not the sender's.
import { cutUtf8 } from '../net/cut-text.js';
import { errorCodeLabel, unlistedErrorCode } from '../sender-api/error-code-label.js';
import { LETTER_ENDPOINTS, SenderApiError } from '../sender-api/index.js';

/** What the record keeps of the API's message (the answer itself is read up to 4 MiB). */
const MESSAGE_MAX_BYTES = 4096;

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
    // the code becomes a metric label and a Redis key: a known one, else HTTP<status>; an
    // unlisted code stays readable in the reason, cut (error-code-label.ts)
    const unlisted = unlistedErrorCode(err.errorCode);
    const message = cutUtf8(err.apiMessage ?? err.message, MESSAGE_MAX_BYTES);
    return {
      kind: err.kind,
      code: errorCodeLabel(err.errorCode, err.statusCode),
      message: unlisted === undefined ? message : `${unlisted}: ${message}`,
      traceId: err.traceId,
      retryAfterMs: err.retryAfterMs,
      refusesLetter: err.kind === 'permanent' && err.errorCode === 'InvalidData' && LETTER_CALLS.has(err.endpoint),
    };
  }
  return { kind: 'retryable', code: 'WorkerError', message: err instanceof Error ? err.message : String(err), refusesLetter: false };
}
