// One HTTP call to the Sender API: a bounded wait, JSON in and out, every failure turned into a
// classified SenderApiError that is logged exactly once, and one observer event per call (none for a
// call we stopped ourselves).
import type { z } from 'zod';
import { jsonRequestBody } from '../fast-paths/index.js';
import type { Logger } from '../log.js';
import { MAX_RESPONSE_BYTES, readBoundedText } from './bounded-body.js';
import { type ApiFailure, classifyApiFailure } from './classify.js';
import { SenderApiError } from './errors.js';
import { type Admission, type ApiGate, ApiHeld } from './gate.js';
import { errorEnvelopeSchema } from './wire.js';

export interface ApiCallEvent {
  readonly endpoint: string;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly durationMs: number;
}

export interface TransportDeps {
  readonly baseUrl: URL;
  readonly fetch: typeof fetch;
  readonly clock: () => number;
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly onCall: ((event: ApiCallEvent) => void) | undefined;
  /** Asked before each call; a held call never leaves the process (the worker's circuit). */
  readonly gate?: ApiGate | undefined;
}

const ALWAYS: Admission = { go: true, settle: () => undefined, cancel: () => undefined };

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Path and query below the base URL, e.g. "/api/v1/letters/abc". */
  readonly path: string;
  /** Templated, for logs and metrics: "GET /api/v1/letters/{id}". */
  readonly endpoint: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON (a Base64Data goes in as its base64 text); absent → no body at all. */
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
}

export async function callApi<S extends z.ZodType>(deps: TransportDeps, request: ApiRequest, schema: S): Promise<z.output<S>> {
  const admission = deps.gate?.admit() ?? ALWAYS;
  if (!admission.go) throw new ApiHeld(request.endpoint, admission.heldMs);
  const started = deps.clock();
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
  const report = (status: number | undefined, errorCode: string | undefined): void => {
    admission.settle(status);
    deps.onCall?.({ endpoint: request.endpoint, status, errorCode, durationMs: deps.clock() - started });
  };

  let status: number | undefined;
  let retryAfter: string | undefined;
  let text: string | undefined;
  try {
    const response = await deps.fetch(joinUrl(deps.baseUrl, request.path), {
      method: request.method,
      redirect: 'manual',
      signal,
      ...requestBody(request),
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after') ?? undefined;
    text = await readBoundedText(response, MAX_RESPONSE_BYTES);
  } catch (err) {
    // Stopped by us (shutdown, a lost lock): it says nothing about the API, so it is no call of it
    // (an outage to the circuit, a `none` in the metrics).
    if (request.signal?.aborted === true) {
      admission.cancel();
      throw request.signal.reason;
    }
    const failure: ApiFailure = timeout.aborted ? { timeout: true } : { network: true };
    const reason = timeout.aborted ? `no answer within ${deps.timeoutMs} ms` : `network error: ${errorText(err)}`;
    throw fail(deps, request, report, { ...failure, status: undefined }, reason, err);
  }

  if (text === undefined) {
    throw fail(deps, request, report, { status, malformed: true }, `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`, undefined);
  }
  const json = parseJson(text);
  if (status < 200 || status > 299) {
    const envelope = errorEnvelopeSchema.safeParse(json);
    const body = envelope.success ? envelope.data : {};
    throw fail(deps, request, report, { status, errorCode: body.errorCode, retryAfter, nowMs: deps.clock() }, undefined, undefined, body);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw fail(deps, request, report, { status, malformed: true }, 'the answer does not match the contract', parsed.error);
  }
  report(status, undefined);
  return parsed.data;
}

function fail(
  deps: TransportDeps,
  request: ApiRequest,
  report: (status: number | undefined, errorCode: string | undefined) => void,
  failure: ApiFailure,
  reason: string | undefined,
  cause: unknown,
  envelope: { message?: string | undefined; traceId?: string | undefined } = {},
): SenderApiError {
  const { kind, retryAfterMs } = classifyApiFailure(failure);
  const error = new SenderApiError(
    {
      kind,
      endpoint: request.endpoint,
      statusCode: failure.malformed === true ? undefined : failure.status,
      errorCode: failure.errorCode,
      traceId: envelope.traceId,
      retryAfterMs,
      apiMessage: envelope.message,
      ...(reason === undefined ? {} : { reason }),
    },
    { cause },
  );
  deps.logger.warn(
    {
      endpoint: error.endpoint,
      statusCode: failure.status,
      errorCode: error.errorCode,
      traceId: error.traceId,
      kind,
      retryAfterMs,
      reason,
    },
    'sender api call failed',
  );
  report(failure.status, failure.errorCode);
  return error;
}

/**
 * The headers and the JSON body (fast-paths: jsonRequestBody): a string, or a longer one (with a
 * document) as a stream of its pieces, with its length declared so that it is not sent chunked.
 */
function requestBody(request: ApiRequest): Pick<RequestInit, 'headers' | 'body' | 'duplex'> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.body === undefined) return { headers };
  headers['content-type'] = 'application/json';
  const body = jsonRequestBody(request.body);
  if (typeof body === 'string') return { headers, body };
  headers['content-length'] = String(body.byteLength);
  return { headers, body, duplex: 'half' };
}

function joinUrl(base: URL, path: string): URL {
  const url = new URL(base.href);
  const [pathname = '', search = ''] = path.split('?', 2);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${pathname}`;
  url.search = search === '' ? '' : `?${search}`;
  return url;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
