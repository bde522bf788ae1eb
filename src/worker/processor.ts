// The BullMQ processor: a thin shell doing I/O around the pure decisions.
// load raw → parse → decide → submit exactly once → record the outcome.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '../log.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeRecord, IntakeState, IntakeUpdate } from '../intake/record.js';
import type { IntakeStore } from '../intake/store.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import { decide } from './decide.js';
import { parseMessage } from './parse-message.js';
import { submitExactlyOnce, type LetterApi } from './submit-letter.js';
import { describeFailure, type FailureView } from './failure.js';
import type { PdfCheckOutcome } from '../pdf/check-pdfs.js';
import type { PdfDocument } from './pdf-rules.js';

export interface ProcessorDeps {
  readonly store: IntakeStore;
  readonly directory: SenderDirectory;
  readonly lettersFor: (sender: Sender) => LetterApi;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
  readonly maxPdfBytes: number;
  /** The deep PDF checks (src/pdf/check-pdfs.ts), bound to the checker threads. */
  readonly checkPdfs: (pdfs: readonly PdfDocument[], sender: Sender) => Promise<PdfCheckOutcome>;
  /** Pauses the whole queue for a while (the API said 429) without spending an attempt. */
  readonly rateLimit: (ms: number, job: Job<IntakeJobData>) => Promise<never>;
}

export const ACTIVE_STATES: readonly IntakeState[] = ['received', 'queued', 'processing', 'failed'];

export function createProcessor(deps: ProcessorDeps) {
  return async function processIntake(job: Job<IntakeJobData>, _token?: string, signal?: AbortSignal): Promise<string> {
    const { intakeId } = job.data;
    const log = deps.logger.child({ intakeId, job: job.id, attempt: job.attemptsMade + 1 });
    const abort = signal ?? new AbortController().signal;
    const record = await deps.store.get(intakeId);
    if (record === undefined) throw new UnrecoverableError(`intake ${intakeId} has no record`);
    if (record.state === 'submitted' || record.state === 'rejected') return record.state;

    await transition(deps, log, record, 'processing', { attempts: job.attemptsMade + 1 });
    const queuedAt = record.timeline.queued ?? record.receivedAt;
    if (job.attemptsMade === 0) deps.observer.stageDuration('queue_wait', (deps.clock() - queuedAt) / 1000);

    const raw = await deps.store.raw(intakeId);
    if (raw === undefined) return fail(deps, log, record, job, { code: 'RawMessageMissing', message: 'the raw message is gone' });

    const parseStarted = performance.now();
    const parsed = await parseMessage(raw).catch(() => undefined);
    deps.observer.stageDuration('parse', (performance.now() - parseStarted) / 1000);
    if (parsed === undefined) return reject(deps, log, record, 'UnparseableMessage', 'The message could not be parsed as MIME.');

    // The sender is the From address authentication judged (record.from), not mailparser's
    // reading of the header: the two parsers disagree on crafted Froms (a group plus an RFC 2047
    // word that decodes to "<letters@acme.example>"), and only the authenticated one is proven.
    const authenticated = { ...parsed, fromAddresses: record.from === '' ? [] : [record.from] };
    const decision = decide(authenticated, { directory: deps.directory, maxPdfBytes: deps.maxPdfBytes });
    if (decision.kind === 'rejected') return reject(deps, log, record, decision.reasonCode, decision.reason);

    const pdfCheck = await deps.checkPdfs(decision.pdfs, decision.sender);
    const pdfs = decision.pdfs.map((p, i) => ({ fileName: p.fileName, bytes: p.content.length, sha256: p.sha256, ...(pdfCheck.ok ? pdfCheck.details[i] : {}) }));
    const facts: IntakeUpdate = { senderId: decision.sender.senderId, pdfs, ignoredAttachments: [...decision.ignoredAttachments] };
    if (!pdfCheck.ok) return reject(deps, log, record, pdfCheck.reasonCode, pdfCheck.reason, facts);
    const apiStarted = performance.now();
    try {
      const letter = await submitExactlyOnce(
        deps.lettersFor(decision.sender),
        {
          letterId: job.data.letterId ?? record.letterId,
          draftRequestedAt: job.data.draftRequestedAt,
          markDraftRequested: (at) => job.updateData({ ...job.data, draftRequestedAt: at }),
          recordLetterId: async (letterId) => {
            await job.updateData({ ...job.data, letterId });
            await deps.store.update(intakeId, { letterId });
          },
        },
        { letter: decision.letter, pdfSha256s: pdfs.map((p) => p.sha256) },
        { clock: deps.clock, signal: abort, isInvalidData: (err) => describeFailure(err).code === 'InvalidData' },
      );
      deps.observer.stageDuration('api', (performance.now() - apiStarted) / 1000);
      await finish(deps, log, record, 'submitted', { ...facts, letterId: letter.id });
      return 'submitted';
    } catch (err) {
      // Shutdown aborted the call: not the API's fault; the job runs again elsewhere.
      if (abort.aborted) throw err;
      const failure = describeFailure(err);
      log.warn({ event: 'intake.api_error', errorCode: failure.code, traceId: failure.traceId, kind: failure.kind }, failure.message);
      if (failure.kind === 'permanent') {
        return reject(deps, log, record, 'ApiRejected', `The Sender API refused the letter: ${failure.message}`, facts);
      }
      if (failure.kind === 'operator') {
        deps.observer.operatorAlert(failure.code);
        return fail(deps, log, record, job, failure, facts, true);
      }
      if (failure.retryAfterMs !== undefined) return deps.rateLimit(failure.retryAfterMs, job);
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) return fail(deps, log, record, job, failure, facts);
      throw err; // retryable: BullMQ waits the backoff and tries again
    }
  };
}

async function transition(
  deps: ProcessorDeps, log: Logger, record: IntakeRecord, to: IntakeState, update: IntakeUpdate,
): Promise<void> {
  const result = await deps.store.transition(record.intakeId, ACTIVE_STATES, to, deps.clock(), update);
  if (!result.ok) throw new UnrecoverableError(`intake ${record.intakeId} is ${result.state ?? 'gone'}, not ${to}`);
  const { letterId, reasonCode, errorCode, traceId } = update;
  log.info({ event: `intake.${to}`, letterId, reasonCode, errorCode, traceId }, `intake ${to}`);
}

async function finish(
  deps: ProcessorDeps, log: Logger, record: IntakeRecord, to: 'submitted' | 'rejected' | 'failed', update: IntakeUpdate,
): Promise<void> {
  await transition(deps, log, record, to, update);
  const acceptedAt = record.timeline.queued ?? record.receivedAt;
  deps.observer.intakeEnded(to, update.reasonCode ?? update.errorCode ?? 'none', (deps.clock() - acceptedAt) / 1000);
}

async function reject(
  deps: ProcessorDeps, log: Logger, record: IntakeRecord, reasonCode: string, reason: string, facts: IntakeUpdate = {},
): Promise<never> {
  await finish(deps, log, record, 'rejected', { ...facts, reasonCode, reason });
  throw new UnrecoverableError(`rejected: ${reasonCode}`);
}

async function fail(
  deps: ProcessorDeps, log: Logger, record: IntakeRecord, job: Job<IntakeJobData>,
  failure: Pick<FailureView, 'code' | 'message'> & { traceId?: string | undefined },
  facts: IntakeUpdate = {}, needsOperator = false,
): Promise<never> {
  await finish(deps, log, record, 'failed', {
    ...facts,
    errorCode: failure.code,
    reason: failure.message,
    ...(failure.traceId === undefined ? {} : { traceId: failure.traceId }),
  });
  const message = `failed after ${job.attemptsMade + 1} attempt(s): ${failure.code}`;
  throw new UnrecoverableError(needsOperator ? `${message} (an operator must act)` : message);
}
