// The typed Sender API client: sessions, requests, failure classification (docs/sandbox-api.md).
export { createSenderApiClient, type SenderApiClient, type SenderApiClientDeps } from './client.js';
export { SenderSession, type CallOptions, type ListQuery, type SenderCredentials } from './sender-session.js';
export { SenderApiError, SenderApiConfigError, type FailureKind } from './errors.js';
export { classifyApiFailure, parseRetryAfterMs, KIND_BY_ERROR_CODE, type ApiFailure, type FailureClass } from './classify.js';
export { checkBaseUrl, isLoopbackHost } from './base-url.js';
export { sessionAction, DEFAULT_REFRESH_MARGIN_MS, type SessionAction } from './session-policy.js';
export type { ApiCallEvent } from './transport.js';
export type { ApiSession, GenderTargeting, LetterDetail, LetterInput, LetterPage, LetterSummary, PartInput } from './wire.js';
