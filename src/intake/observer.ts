// What the listener, the worker and the API client report as they work. The ops module turns
// these into Prometheus metrics; a process without metrics uses the silent observer.

import type { NoticeKind } from '../words/notice-kind.js';
import type { NoticeState } from './notice-fields.js';
import type { IntakeState } from './record.js';

export type Stage = 'auth' | 'store' | 'queue_wait' | 'parse' | 'malware_scan' | 'api';

export interface IntakeObserver {
  smtpConnection(): void;
  smtpReply(code: number, command: string): void;
  stageDuration(stage: Stage, seconds: number): void;
  /** An intake reached a final state; `latencySeconds` runs from the SMTP 250 to that moment. */
  intakeEnded(state: IntakeState, reasonCode: string, latencySeconds: number | undefined): void;
  /** `api`: the Sender API's base URL (a label: one per configured API). */
  apiCall(endpoint: string, status: number | undefined, errorCode: string | undefined, seconds: number, api?: string): void;
  /** An intake failed in a way only an operator can fix (credentials, allow-list). */
  operatorAlert(errorCode: string): void;
  /** A notice to a sender entered a state (queued, sent, suppressed…). */
  noticeState(kind: NoticeKind, state: NoticeState): void;
  /** A message was refused in the SMTP session by one of its own rules (no intake was made). */
  sessionRefused(reasonCode: string): void;
  /** A sender's use of one of its limits (0..1 and past), at an admission (sender-limits.ts). */
  senderLimitUse?(senderId: string, limit: string, ratio: number): void;
}

export const silentObserver: IntakeObserver = {
  smtpConnection: () => {},
  smtpReply: () => {},
  stageDuration: () => {},
  intakeEnded: () => {},
  apiCall: () => {},
  operatorAlert: () => {},
  noticeState: () => {},
  sessionRefused: () => {},
};
