// What the processor's steps share: the dependencies built at the composition root, and one job
// run (who it is, what it knows so far).
import type { Job } from 'bullmq';
import type { IntakeMarkers } from '../intake/markers.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeRecord, IntakeUpdate } from '../intake/record.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { NoticeOutcomes } from '../notices/queue.js';
import type { PdfCheckOutcome } from '../pdf/check-pdfs.js';
import type { PdfDocument } from '../pdf/pdf-document.js';
import type { ApiLimits } from '../policy/message-rules.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { MalwareScanner } from '../scan/malware-scan.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import type { ApiCircuit } from './api-circuit.js';
import type { LetterStatuses } from './letter-statuses.js';
import type { Owner } from './ownership.js';
import type { CheckpointReplicas } from './redis-outcome.js';
import type { LetterApi } from './submit-letter.js';

export interface ProcessorDeps {
  readonly store: IntakeStore;
  /** Where the messages are: each intake's is read from the blob its record names (raw-store/raw-message.ts). */
  readonly rawStore: RawStore;
  readonly directory: SenderDirectory;
  /** The sender's letters on the Sender API at this base URL. */
  readonly lettersFor: (sender: Sender, apiBaseUrl: string) => LetterApi;
  /** The Sender API a sender's new intake goes to: its senderApiUrl, else SENDER_API_URL (also for undefined). */
  readonly apiBaseUrlOf: (sender: Sender | undefined) => string;
  /** What the letter statuses of the Sender API at this base URL were seen to mean (letter-statuses.ts). */
  readonly letterStatuses: (apiBaseUrl: string) => LetterStatuses;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
  readonly maxPdfBytes: number;
  /** The real API's stated limits (API_TITLE_MAX_CHARS, API_MAX_PARTS), unset by default. */
  readonly apiLimits?: ApiLimits | undefined;
  /** Queues the notice an outcome earns its sender (only enqueues). */
  readonly notices: NoticeOutcomes;
  /** The deep PDF checks (src/pdf/check-pdfs.ts), bound to the checker threads. */
  readonly checkPdfs: (pdfs: readonly PdfDocument[], sender: Sender) => Promise<PdfCheckOutcome>;
  /** With CLAMD_URL: the malware scan, before the deep PDF checks and the Sender API. */
  readonly scanForMalware?: MalwareScanner | undefined;
  /**
   * The circuit of the Sender API at this base URL (api-circuit.ts): while open, or while the API
   * asked for a pause (Retry-After), how long a job for that API waits in the delayed set instead
   * of reaching it. Jobs for other APIs run on.
   */
  readonly apiCircuit?: ((apiBaseUrl: string) => Pick<ApiCircuit, 'pauseMsIfOpen' | 'jobHoldMs' | 'holdFor'> | undefined) | undefined;
  /** With REDIS_REPLICAS_ACK: the replicas that must hold each checkpoint before the API call after it. */
  readonly replicas?: CheckpointReplicas | undefined;
  /** The raw store's markers (`letter/`, `ended/`): the record of last resort if Redis is lost. */
  readonly markers?: IntakeMarkers | undefined;
}

/** One job run: who it is, what it knows so far. */
export interface Run {
  readonly deps: ProcessorDeps;
  readonly log: Logger;
  readonly job: Job<IntakeJobData>;
  readonly owner: Owner;
  readonly record: IntakeRecord;
  readonly abort: AbortSignal;
  /** What the worker learned about the letter, recorded with any outcome. */
  facts: IntakeUpdate;
  /** The Sender API this run's letter goes to, once chosen (api-choice.ts). */
  apiBaseUrl?: string | undefined;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
