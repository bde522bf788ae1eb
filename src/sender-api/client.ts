// The typed Sender API client the worker uses: `createSenderApiClient(...).as(sender)` gives a
// per-sender handle whose session is cached for the life of the client.
import { senderApiFetch } from '../fast-paths/index.js';
import type { Logger } from '../log.js';
import { checkBaseUrl } from './base-url.js';
import type { ApiGate } from './gate.js';
import { type SenderCredentials, SenderSession } from './sender-session.js';
import { DEFAULT_REFRESH_MARGIN_MS } from './session-policy.js';
import type { ApiCallEvent } from './transport.js';

export interface SenderApiClientDeps {
  /** SENDER_API_URL: https://…, or http:// to a loopback host only. */
  readonly baseUrl: string;
  /** Defaults to the boundary's (fast-paths: node:http, far less CPU on large bodies; FAST_PATHS=off: the global fetch). */
  readonly fetch?: typeof fetch;
  /** Milliseconds since the epoch; session expiry is judged on it. */
  readonly clock: () => number;
  /** Bound on each HTTP request (SENDER_API_TIMEOUT_MS). */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Refresh this long before `validUntilUtc` (default 60 s). */
  readonly refreshMarginMs?: number;
  /** Called once per HTTP request, for metrics. */
  readonly onCall?: (event: ApiCallEvent) => void;
  /** Asked before each call (the worker's circuit): a held call never leaves the process. */
  readonly gate?: ApiGate;
}

export interface SenderApiClient {
  /** The handle for one sender; the same credentials always give the same handle (one session). */
  as(sender: SenderCredentials): SenderSession;
}

export function createSenderApiClient(deps: SenderApiClientDeps): SenderApiClient {
  const sessionDeps = {
    baseUrl: checkBaseUrl(deps.baseUrl),
    fetch: deps.fetch ?? senderApiFetch(),
    clock: deps.clock,
    timeoutMs: deps.timeoutMs,
    logger: deps.logger.child({ component: 'sender-api' }),
    onCall: deps.onCall,
    gate: deps.gate,
    refreshMarginMs: deps.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
  };
  const handles = new Map<string, SenderSession>();
  return {
    as(sender) {
      const key = JSON.stringify([sender.senderId, sender.apiClientId, sender.apiClientSecret]);
      const existing = handles.get(key);
      if (existing !== undefined) return existing;
      const handle = new SenderSession(sessionDeps, sender);
      handles.set(key, handle);
      return handle;
    },
  };
}
