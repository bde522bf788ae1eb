// Fault injection for tests: the next N /api/v1 calls (optionally only those whose path starts
// with a prefix) answer an error envelope instead of being served. Faults queue in order.
import { defaultErrorCode } from './error-codes.js';
import { type FaultSpec, faultSchema, parseOrThrow } from './schemas.js';

export interface FaultAnswer {
  readonly statusCode: number;
  readonly errorCode: string;
  readonly message: string;
  /** Seconds for a `Retry-After` header; always set for 429. */
  readonly retryAfterSeconds: number | undefined;
}

interface PendingFault {
  readonly answer: FaultAnswer;
  readonly paths: string | undefined;
  remaining: number;
}

export class FaultQueue {
  #pending: PendingFault[] = [];

  add(spec: FaultSpec): void {
    this.addJson(spec);
  }

  /** Validates a fault as sent to `POST /sandbox/faults` (throws `400 InvalidData`) and queues it. */
  addJson(json: unknown): void {
    const fault = parseOrThrow(faultSchema, json, 'fault');
    const retryAfterSeconds = fault.retryAfterSeconds ?? (fault.status === 429 ? 1 : undefined);
    this.#pending.push({
      answer: {
        statusCode: fault.status,
        errorCode: fault.errorCode ?? defaultErrorCode(fault.status),
        message: `injected fault (${fault.status})`,
        retryAfterSeconds,
      },
      paths: fault.paths,
      remaining: fault.count,
    });
  }

  clear(): void {
    this.#pending = [];
  }

  /** The answer for a call to `path`, consuming one use of the first matching fault. */
  take(path: string): FaultAnswer | undefined {
    const fault = this.#pending.find((f) => f.paths === undefined || path.startsWith(f.paths));
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#pending = this.#pending.filter((f) => f !== fault);
    return fault.answer;
  }

  /** Uses left over all queued faults. */
  pendingCount(): number {
    return this.#pending.reduce((sum, f) => sum + f.remaining, 0);
  }
}
