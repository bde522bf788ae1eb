// The BullMQ processor: a thin shell doing I/O around the pure decisions.
// claim → load raw → parse → decide → submit exactly once → record the outcome.
//
// Outcomes, each recorded in one function below (hooks such as notices go there):
//   submitted: the job completes with { outcome: 'submitted', letterId }
//   rejected:  the job completes with { outcome: 'rejected', reasonCode } (a rejection is a
//              normal end, not a failed job: the dashboard's failed tab holds real failures only)
//   failed:    the job fails (UnrecoverableError); the intake is replayable
// Every write after the claim is fenced by the job's lock token (ownership.ts).
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { OwnershipLost, type RejectionReason, ruleSentence, WORKER_FAILURES, type WorkerFailure } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeRecord, IntakeState, IntakeUpdate } from '../intake/record.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { NoticeOutcomes } from '../notices/queue.js';
import type { PdfCheckOutcome } from '../pdf/check-pdfs.js';
import { PdfRecheckLater } from '../pdf/checker-pool.js';
import type { PdfDocument } from '../pdf/pdf-document.js';
import type { ApiLimits } from '../policy/message-rules.js';
import { SenderApiError } from '../sender-api/index.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import { decide } from './decide.js';
import { describeFailure } from './failure.js';
import { FreshOwnership, type Owner, ownedCheckpoint, ownedLetterApi } from './ownership.js';
import { isParserLimit, type ParsedMessage, parseMessage } from './parse-message.js';
import { noteStatusName } from './status-names.js';
import { type LetterApi, submitExactlyOnce } from './submit-letter.js';

export interface ProcessorDeps {
  readonly store: IntakeStore;
  readonly directory: SenderDirectory;
  readonly lettersFor: (sender: Sender) => LetterApi;
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
  /** Pauses the whole queue for a while (the API said 429) without spending an attempt. */
  readonly rateLimit: (ms: number, job: Job<IntakeJobData>) => Promise<never>;
  /** While the Sender API circuit is open (api-circuit.ts): how long a job that met the outage holds the queue. */
  readonly apiOutagePauseMs?: () => number | undefined;
}

/** What a job returns when its intake ended without a failure. */
export type IntakeOutcome =
  | { readonly outcome: 'submitted'; readonly letterId: string }
  | { readonly outcome: 'rejected'; readonly reasonCode: string };

export const ACTIVE_STATES: readonly IntakeState[] = ['received', 'queued', 'processing', 'failed'];

/** One job run: who it is, what it knows so far. */
interface Run {
  readonly deps: ProcessorDeps;
  readonly log: Logger;
  readonly job: Job<IntakeJobData>;
  readonly owner: Owner;
  readonly record: IntakeRecord;
  readonly abort: AbortSignal;
  /** What the worker learned about the letter, recorded with any outcome. */
  facts: IntakeUpdate;
}

export function createProcessor(deps: ProcessorDeps) {
  return async function processIntake(job: Job<IntakeJobData>, token?: string, signal?: AbortSignal): Promise<IntakeOutcome> {
    const { intakeId } = job.data;
    if (token === undefined) throw new Error(`job ${intakeId} came without a lock token: its writes could not be fenced`);
    const log = deps.logger.child({ intakeId, job: job.id, attempt: job.attemptsMade + 1 });
    const owner: Owner = { store: deps.store, intakeId, token };
    // The claim answers with the record as it left it: checkpoints a worker that held it before wrote included.
    const claimed = await deps.store.claim(intakeId, ACTIVE_STATES, deps.clock(), { attempts: job.attemptsMade + 1 }, token);
    if (!claimed.ok) {
      const ended = claimed.state === 'submitted' || claimed.state === 'rejected' ? await deps.store.get(intakeId) : undefined;
      if (ended?.state === 'submitted' || ended?.state === 'rejected') {
        // An earlier attempt may have recorded the outcome and stopped before queueing its notice.
        try {
          await deps.notices.onOutcome(intakeId, ended.state, ended.senderId);
        } catch (err) {
          return queueNoticeLater(job, token, log, new NoticeNotQueued(ended.state, err));
        }
        return ended.state === 'submitted'
          ? { outcome: 'submitted', letterId: ended.letterId ?? '' }
          : { outcome: 'rejected', reasonCode: ended.reasonCode ?? '' };
      }
      if (claimed.state === undefined) throw new UnrecoverableError(`intake ${intakeId} has no record`);
      throw new UnrecoverableError(`intake ${intakeId} is ${claimed.state}, not processing`);
    }
    const record = claimed.record;
    if (record === undefined) throw new UnrecoverableError(`intake ${intakeId} has no record`);
    log.info({ event: 'intake.processing' }, 'intake processing');
    const queuedAt = record.timeline.queued ?? record.receivedAt;
    if (job.attemptsMade === 0) deps.observer.stageDuration('queue_wait', (deps.clock() - queuedAt) / 1000);

    const run: Run = { deps, log, job, owner, record, abort: signal ?? new AbortController().signal, facts: {} };
    try {
      return await work(run).catch((err: unknown) => handleError(run, err));
    } catch (err) {
      if (err instanceof NoticeNotQueued) return queueNoticeLater(job, token, log, err);
      throw err;
    }
  };
}

/**
 * The outcome is recorded, its notice is not queued: the job comes back without spending an
 * attempt (its last one included), and its claim then finds the outcome and queues the notice,
 * deciding nothing again. The wait doubles with each such return (5 s up to 5 min): a Redis that
 * keeps refusing is logged at error each time, never given up on in silence.
 */
async function queueNoticeLater(job: Job<IntakeJobData>, token: string, log: Logger, err: NoticeNotQueued): Promise<never> {
  const returns = Math.max(0, job.attemptsStarted - job.attemptsMade - 1); // runs that spent no attempt
  const delayMs = Math.min(NOTICE_REQUEUE_DELAY_MS * 2 ** Math.min(returns, 10), NOTICE_REQUEUE_MAX_DELAY_MS);
  log.error({ err: err.cause, event: 'intake.notice_not_queued', outcome: err.outcome, retryInMs: delayMs }, err.message);
  await job.moveToDelayed(Date.now() + delayMs, token); // BullMQ's own clock
  throw new DelayedError(err.message);
}

async function work(run: Run): Promise<IntakeOutcome> {
  const { deps, record } = run;
  // A raw store that does not answer throws StorageUnavailable: a retry, not a missing message.
  const message = await deps.store.rawMessage(record);
  if (!message.found) return failed(run, { code: 'RawMessageMissing', message: `${WORKER_FAILURES.RawMessageMissing} ${message.reason}` });
  const raw = message.bytes;

  const parseStarted = performance.now();
  let parsed: ParsedMessage;
  try {
    parsed = await parseMessage(raw);
  } catch (err) {
    // The parser's own limits are a rule of the message; anything else is a defect of ours.
    if (isParserLimit(err)) return rejected(run, 'UnparseableMessage', ruleSentence('UnparseableMessage', deps));
    run.log.error({ err, event: 'intake.parser_error' }, 'the message parser failed');
    return failed(run, { code: 'ParserError', message: `${WORKER_FAILURES.ParserError} ${errorText(err)}` });
  } finally {
    deps.observer.stageDuration('parse', (performance.now() - parseStarted) / 1000);
  }

  // The sender is the From address authentication judged (record.from), not mailparser's
  // reading of the header: the two parsers disagree on crafted Froms (a group plus an RFC 2047
  // word that decodes to "<letters@acme.example>"), and only the authenticated one is proven.
  const authenticated = { ...parsed, fromAddresses: record.from === '' ? [] : [record.from] };
  const decision = decide(authenticated, { directory: deps.directory, maxPdfBytes: deps.maxPdfBytes, apiLimits: deps.apiLimits });
  if (decision.kind === 'rejected') return rejected(run, decision.reasonCode, decision.reason);

  const pdfCheck = await deps.checkPdfs(decision.pdfs, decision.sender);
  const pdfs = decision.pdfs.map((p, i) => ({
    fileName: p.fileName,
    bytes: p.content.length,
    sha256: p.sha256,
    ...(pdfCheck.ok ? pdfCheck.details[i] : {}),
  }));
  run.facts = { senderId: decision.sender.senderId, pdfs, ignoredAttachments: [...decision.ignoredAttachments] };
  if (!pdfCheck.ok) return rejected(run, pdfCheck.reasonCode, `${pdfCheck.reasonCode}: ${pdfCheck.reason}`);
  const apiStarted = performance.now();
  const fresh = new FreshOwnership(); // a checkpoint write just before an API call is its ownership check
  const letter = await submitExactlyOnce(
    ownedLetterApi(deps.lettersFor(decision.sender), run.owner, fresh),
    ownedCheckpoint(run.owner, record, deps.clock, run.log, fresh),
    { letter: decision.letter, pdfSha256s: pdfs.map((p) => p.sha256) },
    { clock: deps.clock, signal: run.abort, isInvalidData: (err) => describeFailure(err).code === 'InvalidData' },
  );
  deps.observer.stageDuration('api', (performance.now() - apiStarted) / 1000);
  return submitted(run, letter.id, letter.status);
}

async function handleError(run: Run, err: unknown): Promise<IntakeOutcome> {
  const { deps, log, job } = run;
  if (err instanceof UnrecoverableError) throw err; // an outcome already recorded as failed
  if (err instanceof NoticeNotQueued) throw err; // the outcome stands (processIntake)
  if (run.abort.aborted) {
    // Shutdown aborted the work: the job goes back to the queue for another worker, without
    // spending an attempt (failing it would end a job on its last attempt for our restart).
    await run.job.moveToDelayed(Date.now(), run.owner.token);
    throw new DelayedError(`intake ${run.record.intakeId}: the worker is shutting down`);
  }
  if (err instanceof PdfRecheckLater) {
    // The PDF's second chance waits for the pool's re-check to be free: back later, no attempt spent.
    log.info({ event: 'intake.pdf_recheck_later', retryInMs: err.retryInMs }, err.message);
    await job.moveToDelayed(Date.now() + err.retryInMs, run.owner.token); // BullMQ's own clock
    throw new DelayedError(err.message);
  }
  if (err instanceof OwnershipLost) {
    // Another worker holds the intake now: stop here, writing nothing (BullMQ's own moves of
    // this job fail too, for the lock is not ours any more).
    log.warn({ event: 'intake.ownership_lost', reason: err.message }, 'another worker holds the intake; this run stops');
    throw err;
  }
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (!(err instanceof SenderApiError)) {
    // Redis trouble or a defect: retried like any transient failure, and always shown with its stack.
    log.error({ err, event: 'intake.worker_error' }, 'unexpected error while processing the intake');
    if (lastAttempt) return failed(run, { code: 'WorkerError', message: `${WORKER_FAILURES.WorkerError} Last: ${errorText(err)}` });
    throw err;
  }
  const failure = describeFailure(err);
  log.warn({ event: 'intake.api_error', errorCode: failure.code, traceId: failure.traceId, kind: failure.kind }, failure.message);
  if (failure.refusesLetter) return rejected(run, 'ApiRejected', ruleSentence('ApiRejected', deps, failure.message));
  // Credentials, permissions, the allow-list, or a refusal not about the letter: a person must act.
  if (failure.kind === 'operator' || failure.kind === 'permanent') {
    deps.observer.operatorAlert(failure.code);
    return failed(run, failure, true);
  }
  if (failure.retryAfterMs !== undefined) return deps.rateLimit(failure.retryAfterMs, job);
  const outagePauseMs = failure.kind === 'retryable' ? deps.apiOutagePauseMs?.() : undefined;
  if (outagePauseMs !== undefined) return deps.rateLimit(outagePauseMs, job); // no attempt spent while the API is away
  if (lastAttempt) return failed(run, failure);
  throw err; // retryable: BullMQ waits the backoff and tries again
}

async function submitted(run: Run, letterId: string, letterStatus: string | undefined): Promise<IntakeOutcome> {
  noteStatusName(letterStatus, run.log);
  await end(run, 'submitted', { ...run.facts, letterId, letterStatus });
  return { outcome: 'submitted', letterId };
}

async function rejected(run: Run, reasonCode: RejectionReason, reason: string): Promise<IntakeOutcome> {
  await end(run, 'rejected', { ...run.facts, reasonCode, reason });
  return { outcome: 'rejected', reasonCode };
}

async function failed(
  run: Run,
  failure: { readonly code: WorkerFailure | string; readonly message: string; readonly traceId?: string | undefined },
  needsOperator = false,
): Promise<never> {
  await end(run, 'failed', {
    ...run.facts,
    errorCode: failure.code,
    reason: failure.message,
    ...(failure.traceId === undefined ? {} : { traceId: failure.traceId }),
  });
  const message = `failed after ${run.job.attemptsMade + 1} attempt(s): ${failure.code}`;
  throw new UnrecoverableError(needsOperator ? `${message} (an operator must act)` : message);
}

/** The final transition, only while this run holds the intake. */
async function end(run: Run, to: 'submitted' | 'rejected' | 'failed', update: IntakeUpdate): Promise<void> {
  const { deps, record, owner } = run;
  const result = await deps.store.transition(record.intakeId, ['processing'], to, deps.clock(), update, { expectedOwner: owner.token });
  if (!result.ok && result.notOwner === true) throw new OwnershipLost(`intake ${record.intakeId} is no longer held by this job run`);
  if (!result.ok) throw new UnrecoverableError(`intake ${record.intakeId} is ${result.state ?? 'gone'}, not ${to}`);
  const { letterId, letterStatus, reasonCode, errorCode, traceId } = update;
  const line = { event: `intake.${to}`, letterId, letterStatus, reasonCode, errorCode, traceId };
  if (to === 'failed') run.log.error(line, `intake ${to}`);
  else run.log.info(line, `intake ${to}`);
  const acceptedAt = record.timeline.queued ?? record.receivedAt;
  deps.observer.intakeEnded(to, update.reasonCode ?? update.errorCode ?? 'none', (deps.clock() - acceptedAt) / 1000);
  try {
    await deps.notices.onOutcome(record.intakeId, to, update.senderId ?? record.senderId);
  } catch (err) {
    if (to !== 'failed') throw new NoticeNotQueued(to, err);
    // A failed intake is the operator's to look at, notice or not; a retry would claim it and run it again.
    run.log.error({ err, event: 'intake.notice_not_queued', outcome: to }, 'the intake is failed, but its notice could not be queued');
    throw new UnrecoverableError(`intake ${record.intakeId} is failed; its notice could not be queued: ${errorText(err)}`);
  }
}

/** The outcome is recorded but its notice could not be queued (Redis refused the write). */
class NoticeNotQueued extends Error {
  override readonly name = 'NoticeNotQueued';
  constructor(
    readonly outcome: 'submitted' | 'rejected',
    cause: unknown,
  ) {
    super(`the intake is ${outcome}, but its notice could not be queued: ${errorText(cause)}`, { cause });
  }
}

/** How long a job whose outcome is recorded first waits before it tries to queue the notice again. */
const NOTICE_REQUEUE_DELAY_MS = 5000;
const NOTICE_REQUEUE_MAX_DELAY_MS = 5 * 60_000;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
