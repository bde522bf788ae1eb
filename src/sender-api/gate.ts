// A gate every Sender API call passes before it leaves the process (transport.ts): the worker's
// circuit (worker/api-circuit.ts) lets a call through, or holds it without reaching the API. A
// call let through reports its answer back, so the circuit judges the API by the calls it
// protects. A held call fails with ApiHeld, which says how long the API is held.
import { SenderApiError } from './errors.js';

/** What the gate says to one call. */
export type Admission =
  | {
      readonly go: true;
      /** The call's answer: its HTTP status, undefined for none (time-out, refused connection). */
      settle(status: number | undefined): void;
      /** The call was stopped by us (shutdown, a lost lock): it says nothing about the API. */
      cancel(): void;
    }
  | { readonly go: false; readonly heldMs: number };

export interface ApiGate {
  admit(): Admission;
}

/** The call did not leave the process: the API is held (its circuit is open, or it asked for a pause) for about `heldMs` more. */
export class ApiHeld extends SenderApiError {
  readonly heldMs: number;

  constructor(endpoint: string, heldMs: number) {
    super({
      kind: 'retryable',
      endpoint,
      statusCode: undefined,
      errorCode: undefined,
      traceId: undefined,
      retryAfterMs: undefined,
      apiMessage: undefined,
      reason: 'not sent: the Sender API is held (its circuit is open, or it asked for a pause)',
    });
    this.heldMs = heldMs;
  }
}
