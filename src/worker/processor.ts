// The BullMQ processor: a thin shell around the intake's work. It claims the intake, lets the
// work (intake-work.ts) or the error it threw (error-outcome.ts) come to one Outcome, and hands
// that to settle-job.ts, the one place that speaks BullMQ. Every write after the claim is fenced
// by the job's lock token (ownership.ts). A job that keeps coming back without spending an
// attempt alerts an operator (job-returns.ts).
import type { Job } from 'bullmq';
import type { IntakeJobData } from '../intake/queue.js';
import type { IntakeState } from '../intake/record.js';
import type { Logger } from '../log.js';
import { isStorageError } from '../redis/redis-errors.js';
import { markEnded } from './ended-marker.js';
import { outcomeOfError } from './error-outcome.js';
import { workOnIntake } from './intake-work.js';
import { alertIfLooping } from './job-returns.js';
import type { JobResult, Outcome } from './outcome.js';
import type { Owner } from './ownership.js';
import { noticeNotQueued, storageLater } from './record-end.js';
import { redisOutcome, replicatedCheckpoint } from './redis-outcome.js';
import type { ProcessorDeps, Run } from './run.js';
import { settleJob } from './settle-job.js';

export type { ProcessorDeps } from './run.js';

/**
 * The states a job may claim. Never `failed`: its sender was told, and only a replay (the CLI, the
 * page, or a re-delivery of the same message) queues it again. A dashboard Retry, a stalled job
 * coming back or a kept job finds it failed and stops (the TRANSITION script refuses it too).
 */
export const ACTIVE_STATES: readonly IntakeState[] = ['received', 'queued', 'processing'];

export function createProcessor(deps: ProcessorDeps) {
  return async function processIntake(job: Job<IntakeJobData>, token?: string, signal?: AbortSignal): Promise<JobResult> {
    const { intakeId } = job.data;
    if (token === undefined) throw new Error(`job ${intakeId} came without a lock token: its writes could not be fenced`);
    const log = deps.logger.child({ intakeId, job: job.id, attempt: job.attemptsMade + 1 });
    // The sender's Sender API is held (its Retry-After runs, or its circuit is open and no trial is
    // due): the job would only be held at its gate. (An intake recorded for another API is judged by that one's gate.)
    const heldMs = deps.apiCircuit?.(deps.apiBaseUrlOf(deps.directory.byAddress(job.data.from)))?.jobHoldMs();
    const outcome: Outcome = heldMs === undefined ? await runIntake(deps, job, token, log, signal) : { kind: 'api-outage', waitMs: heldMs };
    alertIfLooping(job, outcome, deps.observer, log);
    return settleJob(outcome, {
      delayUntil: (timestamp) => job.moveToDelayed(timestamp, token),
      now: Date.now, // BullMQ's own clock
    });
  };
}

async function runIntake(deps: ProcessorDeps, job: Job<IntakeJobData>, token: string, log: Logger, signal?: AbortSignal): Promise<Outcome> {
  const { intakeId } = job.data;
  const owner: Owner = { store: deps.store, intakeId, token };
  // The claim answers with the record as it left it: checkpoints a worker that held it before wrote included.
  const claimHeld = replicatedCheckpoint(deps.replicas, deps.clock)(); // begun before the claim: its read is covered
  let claimed: Awaited<ReturnType<typeof deps.store.claim>>;
  try {
    claimed = await deps.store.claim(intakeId, ACTIVE_STATES, deps.clock(), { attempts: job.attemptsMade + 1 }, token);
  } catch (err) {
    // Redis away or refusing: nothing was done, and an earlier run may have submitted the letter,
    // so no attempt is spent on it (Redis away, as in a failover, comes back within 30 s; a refusal
    // such as OOM or NOPERM waits longer). Anything else is a defect: its attempts run out.
    const away = redisOutcome(err, job, log);
    if (away !== undefined) return away;
    if (isStorageError(err)) return storageLater(job, log, `intake ${intakeId} could not be claimed`, err);
    log.error({ err, event: 'intake.worker_error' }, `intake ${intakeId} could not be claimed`);
    return { kind: 'retry', error: err };
  }
  if (!claimed.ok) return notClaimed(deps, job, log, claimed.state);
  const record = claimed.record;
  if (record === undefined) return { kind: 'stale-job', reason: `intake ${intakeId} has no record` };
  log.info({ event: 'intake.processing' }, 'intake processing');
  const queuedAt = record.timeline.queued ?? record.receivedAt;
  if (job.attemptsMade === 0) deps.observer.stageDuration('queue_wait', (deps.clock() - queuedAt) / 1000);

  const run: Run = { deps, log, job, owner, record, abort: signal ?? new AbortController().signal, facts: {} };
  const work = async (): Promise<Outcome> => {
    // A letter id the claim read may be one an earlier run recorded and no replica acknowledged:
    // on the replicas wanted before anything is submitted, as when it was recorded (ReplicasBehind if not).
    if (record.letterId !== undefined) await claimHeld();
    return workOnIntake(run);
  };
  return work().catch((err: unknown) => outcomeOfError(run, err));
}

/** A claim refused: an intake that ended already completes the job again, queueing its notice if an earlier attempt could not. */
async function notClaimed(deps: ProcessorDeps, job: Job<IntakeJobData>, log: Logger, state: IntakeState | undefined): Promise<Outcome> {
  const { intakeId } = job.data;
  const ended = state === 'submitted' || state === 'rejected' || state === 'simulated' ? await deps.store.get(intakeId) : undefined;
  if (ended?.state === 'submitted' || ended?.state === 'rejected' || ended?.state === 'simulated') {
    // An earlier attempt may have recorded the outcome and stopped before queueing its notice.
    try {
      await deps.notices.onOutcome(intakeId, ended.state, ended.senderId);
    } catch (err) {
      return noticeNotQueued(job, log, ended.state, err);
    }
    const unmarked = await markEnded(deps, intakeId, log);
    if (unmarked !== undefined) return unmarked;
    if (ended.state === 'simulated') return { kind: 'simulated' };
    return ended.state === 'submitted'
      ? { kind: 'submitted', letterId: ended.letterId ?? '' }
      : { kind: 'rejected', reasonCode: ended.reasonCode ?? '' };
  }
  if (state === undefined) return { kind: 'stale-job', reason: `intake ${intakeId} has no record` };
  if (state === 'failed') {
    log.warn({ event: 'intake.not_claimed', state }, 'a job ran for a failed intake; only a replay queues it again');
    // Whoever failed it may not have written its `ended/` (a Redis loss would bring it back queued).
    const marked = await deps.markers?.ended(intakeId).then(
      (ended) => ended !== undefined,
      () => false,
    );
    if (marked === false) await markEnded(deps, intakeId, log);
    return { kind: 'stale-job', reason: `intake ${intakeId} is failed: only a replay queues it again` };
  }
  return { kind: 'stale-job', reason: `intake ${intakeId} is ${state}, not processing` };
}
