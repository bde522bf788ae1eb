// The sandbox Sender API: an in-memory, strict implementation of the contract (docs/sandbox-api.md).
export { createSandboxServer, type SandboxDeps } from './server.js';
export { startSandbox, type RunningSandbox, type StartSandboxOptions } from './start.js';
export { SandboxStore } from './store.js';
export { SESSION_TTL_MS, type SessionCounts } from './sessions.js';
export { API_ERROR_STATUS, type ApiErrorCode, type ErrorEnvelope } from './error-codes.js';
export { LETTER_STATUSES, type LetterStatus } from './letter-rules.js';
export type { FaultSpec } from './schemas.js';
export type { OperatorLetterView, LetterDetailView, LetterSummaryView, SessionView } from './views.js';
export { isIpAllowed } from './ip-allow-list.js';
