// The typed Sender API client: sessions, requests, failure classification (docs/sandbox-api.md).

export { Base64Data } from '../net/base64-data.js';
export { parseApiDateTime } from './api-datetime.js';
export { checkBaseUrl, isLoopbackHost } from './base-url.js';
export { type ApiFailure, classifyApiFailure, type FailureClass, KIND_BY_ERROR_CODE, parseRetryAfterMs } from './classify.js';
export { createSenderApiClient, type SenderApiClient, type SenderApiClientDeps } from './client.js';
export { DOCUMENT_ENDPOINTS, type SenderDocuments, senderDocuments } from './documents.js';
export type {
  Decimal,
  DocumentPartInput,
  EndUserInput,
  InvoiceAnswer,
  InvoiceInput,
  LineItemInput,
  ReceiptAnswer,
  ReceiptContentInput,
  ReceiptDocumentType,
  ReceiptInput,
  UtcDateTime,
} from './documents-wire.js';
export { type FailureKind, SenderApiConfigError, SenderApiError } from './errors.js';
export { type Admission, type ApiGate, ApiHeld } from './gate.js';
export { type CallOptions, LETTER_ENDPOINTS, type ListQuery, type SenderCredentials, SenderSession } from './sender-session.js';
export { ASSUMED_SESSION_MS, DEFAULT_REFRESH_MARGIN_MS, type SessionAction, sessionAction, sessionEndMs } from './session-policy.js';
export type { ApiCallEvent } from './transport.js';
export type {
  ApiSession,
  DraftAnswer,
  GenderTargeting,
  LetterInput,
  LetterPage,
  LetterView,
  ListedLetter,
  PartInput,
  SubmitAnswer,
} from './wire.js';
