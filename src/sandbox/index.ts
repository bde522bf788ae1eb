// The sandbox Sender API: an in-memory, strict implementation of the contract (docs/sandbox-api.md).

export { API_ERROR_STATUS, type ApiErrorCode, type ErrorEnvelope } from './error-codes.js';
export { isIpAllowed } from './ip-allow-list.js';
export { LETTER_STATUSES, type LetterStatus } from './letter-rules.js';
export type { FaultSpec } from './schemas.js';
export { createSandboxServer, type SandboxDeps } from './server.js';
export { SESSION_TTL_MS, type SessionCounts } from './sessions.js';
export { type RunningSandbox, type StartSandboxOptions, startSandbox } from './start.js';
export { SandboxStore } from './store.js';
export type { LetterDetailView, LetterSummaryView, OperatorLetterView, SessionView } from './views.js';
