// What this process last heard from the Sender API, for /readyz. Fed by every API call the
// worker makes (through the metrics observer); a process that makes no API calls has none.
//
// "Healthy answer" means the API answered below 500: a 4xx (InvalidData, an expired session,
// a 429) is about one request, not about the API being reachable. Network errors, time-outs
// and 5xx answers are failures.

export interface ApiHealthSnapshot {
  /** Last call the API answered below 500 (ms since the epoch). */
  readonly lastOkAt?: number;
  /** Last call that failed (network, time-out, 5xx). */
  readonly lastFailureAt?: number;
  /** First failure since the last healthy answer: how long the API has been failing. */
  readonly failingSince?: number;
  /** The last failure in words: its errorCode, HTTP status or "no answer". */
  readonly lastError?: string;
}

export interface ApiHealth {
  /** `api`: the Sender API's base URL, when the process knows it (a worker serves one per sender's senderApiUrl). */
  record(status: number | undefined, errorCode: string | undefined, at: number, api?: string): void;
  /** Every call, whichever API answered it. */
  snapshot(): ApiHealthSnapshot;
  /** Each Sender API's own, by base URL (only calls that named their API). */
  byApi(): ReadonlyMap<string, ApiHealthSnapshot>;
}

export function createApiHealth(): ApiHealth {
  let state: ApiHealthSnapshot = {};
  const apis = new Map<string, ApiHealthSnapshot>();
  return {
    record(status, errorCode, at, api) {
      state = next(state, status, errorCode, at);
      if (api !== undefined) apis.set(api, next(apis.get(api) ?? {}, status, errorCode, at));
    },
    snapshot: () => state,
    byApi: () => apis,
  };
}

function next(state: ApiHealthSnapshot, status: number | undefined, errorCode: string | undefined, at: number): ApiHealthSnapshot {
  if (status !== undefined && status < 500) {
    const { lastFailureAt, lastError } = state;
    return {
      lastOkAt: at,
      ...(lastFailureAt === undefined ? {} : { lastFailureAt }),
      ...(lastError === undefined ? {} : { lastError }),
    };
  }
  return {
    ...(state.lastOkAt === undefined ? {} : { lastOkAt: state.lastOkAt }),
    lastFailureAt: at,
    failingSince: state.failingSince ?? at,
    lastError: describeFailure(status, errorCode),
  };
}

function describeFailure(status: number | undefined, errorCode: string | undefined): string {
  if (status === undefined) return errorCode ?? 'no answer';
  return errorCode === undefined ? `HTTP ${status}` : `${errorCode} (HTTP ${status})`;
}
