// The sandbox's whole state, in memory (a restart forgets every session, letter and fault),
// and the handle tests and operators drive it with in-process.
import type { SenderDirectory } from '../senders/directory.js';
import { BillingStore } from './billing-store.js';
import { DocumentStore } from './document-store.js';
import { EndUserRegistry } from './end-users.js';
import { FaultQueue } from './faults.js';
import { HoldQueue } from './holds.js';
import { LetterStore } from './letter-store.js';
import type { FaultSpec } from './schemas.js';
import { type SessionCounts, SessionStore } from './sessions.js';
import { type OperatorLetterView, operatorView } from './views.js';

export class SandboxStore {
  readonly sessions: SessionStore;
  readonly letters: LetterStore;
  readonly faults = new FaultQueue();
  readonly holds = new HoldQueue();
  readonly endUsers = new EndUserRegistry();
  readonly billing: BillingStore;
  readonly documents: DocumentStore;

  constructor(
    readonly directory: SenderDirectory,
    clock: () => number,
    sessionTtlMs?: number,
  ) {
    this.sessions = new SessionStore(clock, sessionTtlMs);
    this.letters = new LetterStore(clock);
    this.billing = new BillingStore(clock, this.endUsers);
    this.documents = new DocumentStore(clock);
  }

  /** Every letter of every sender, with its senderId and document metadata. */
  allLetters(): OperatorLetterView[] {
    return this.letters.all().map((l) => operatorView(l, this.#companyName(l.senderId)));
  }

  approve(id: string): OperatorLetterView {
    return this.#move(id, 'approve');
  }

  reject(id: string): OperatorLetterView {
    return this.#move(id, 'reject');
  }

  startSending(id: string): OperatorLetterView {
    return this.#move(id, 'start-sending');
  }

  markSent(id: string): OperatorLetterView {
    return this.#move(id, 'mark-sent');
  }

  /** The next `count` /api/v1 calls (matching `paths`, when given) answer this error. */
  injectFault(spec: FaultSpec): void {
    this.faults.add(spec);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  /** Forgets every session, as a restarted API would: the next call with any X-Session is 401. */
  forgetSessions(): void {
    this.sessions.forgetAll();
  }

  /** Successful logins and refreshes of one sender since the sandbox started. */
  sessionCounts(senderId: string): SessionCounts {
    return this.sessions.counts(senderId);
  }

  companyName(senderId: string): string {
    return this.#companyName(senderId);
  }

  #move(id: string, action: 'approve' | 'reject' | 'start-sending' | 'mark-sent'): OperatorLetterView {
    const letter = this.letters.move(id, action);
    return operatorView(letter, this.#companyName(letter.senderId));
  }

  #companyName(senderId: string): string {
    return this.directory.bySenderId(senderId)?.companyNameEn ?? '';
  }
}
