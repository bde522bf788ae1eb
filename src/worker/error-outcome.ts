// What an error thrown while the intake was worked on comes to (docs/design.md §8). The order
// matters: a shutdown explains any error first; then the kinds the worker expects to meet
// (a PDF re-check later, another owner, Redis away or its replicas behind, a Sender API answer);
// anything else is a defect, retried like any transient failure until the last attempt fails the intake.
import { OwnershipLost, ruleSentence, UnknownLetterStatus, WORKER_FAILURES } from '../errors.js';
import { PdfRecheckLater } from '../pdf/checker-pool.js';
import { SealBroken } from '../raw-store/sealing/seal-format.js';
import { ApiHeld, SenderApiError } from '../sender-api/index.js';
import { describeFailure } from './failure.js';
import type { Outcome } from './outcome.js';
import { failed, ownershipLost, rejected } from './record-end.js';
import { redisOutcome } from './redis-outcome.js';
import { errorText, type Run } from './run.js';

/** Records what the error ends (a failed or rejected intake) and returns the run's Outcome; throws only when that recording throws. */
export async function outcomeOfError(run: Run, err: unknown): Promise<Outcome> {
  const { deps, log, job } = run;
  if (run.abort.aborted) {
    // Failing the job would end one on its last attempt for our restart: another worker takes it.
    return { kind: 'shutting-down', reason: `intake ${run.record.intakeId}: the worker is shutting down` };
  }
  if (err instanceof PdfRecheckLater) {
    log.info({ event: 'intake.pdf_recheck_later', retryInMs: err.retryInMs }, err.message);
    return { kind: 'pdf-recheck-later', retryInMs: err.retryInMs, reason: err.message };
  }
  if (err instanceof OwnershipLost) return ownershipLost(run, err.message);
  if (err instanceof SealBroken) {
    // Tampering, truncation or a missing key: never retried into a letter; an operator looks (replayable once fixed).
    deps.observer.operatorAlert('RawStoreSealBroken');
    log.error({ err, event: 'intake.seal_broken', errorCode: 'RawStoreSealBroken' }, err.message);
    return failed(run, { code: 'RawStoreSealBroken', message: WORKER_FAILURES.RawStoreSealBroken }, true);
  }
  const redis = redisOutcome(err, job, log);
  if (redis !== undefined) return redis;
  // Held at the circuit's gate: the call never left the process, and no attempt is spent on it.
  if (err instanceof ApiHeld) return { kind: 'api-outage', waitMs: err.heldMs };
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (err instanceof UnknownLetterStatus) {
    // Read again after the backoff (a state the letter passes through ends); never taken for a submit.
    log.warn({ event: 'intake.unknown_letter_status', letterId: err.letterId, status: err.status }, err.message);
    if (!lastAttempt) return { kind: 'retry', error: err };
    deps.observer.operatorAlert('UnknownLetterStatus');
    return failed(run, { code: 'UnknownLetterStatus', message: `${WORKER_FAILURES.UnknownLetterStatus} ${err.message}` }, true);
  }
  if (!(err instanceof SenderApiError)) {
    // A defect (or a Redis error of no known kind): retried like any transient failure, and always shown with its stack.
    log.error({ err, event: 'intake.worker_error' }, 'unexpected error while processing the intake');
    if (lastAttempt) return failed(run, { code: 'WorkerError', message: `${WORKER_FAILURES.WorkerError} Last: ${errorText(err)}` });
    return { kind: 'retry', error: err };
  }
  const failure = describeFailure(err);
  log.warn({ event: 'intake.api_error', errorCode: failure.code, traceId: failure.traceId, kind: failure.kind }, failure.message);
  if (failure.refusesLetter) return rejected(run, 'ApiRejected', ruleSentence('ApiRejected', deps, failure.message));
  // Credentials, permissions, the allow-list, or a refusal not about the letter: a person must act.
  if (failure.kind === 'operator' || failure.kind === 'permanent') {
    deps.observer.operatorAlert(failure.code);
    return failed(run, failure, true);
  }
  const circuit = run.apiBaseUrl === undefined ? undefined : deps.apiCircuit?.(run.apiBaseUrl);
  if (failure.retryAfterMs !== undefined) {
    // The API asked for a pause: this job and every call of ours to that API wait for it (its circuit holds them).
    circuit?.holdFor(failure.retryAfterMs);
    return { kind: 'rate-limited', waitMs: failure.retryAfterMs };
  }
  const outagePauseMs = failure.kind === 'retryable' ? circuit?.pauseMsIfOpen() : undefined;
  if (outagePauseMs !== undefined) return { kind: 'api-outage', waitMs: outagePauseMs };
  if (lastAttempt) return failed(run, failure);
  return { kind: 'retry', error: err }; // BullMQ waits the backoff and tries again
}
