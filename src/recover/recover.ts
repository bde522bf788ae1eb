// `recover`: after Redis lost intake records, the raw store's markers bring back every intake
// that may have been answered 250 (docs/design.md §13). Discovery lists `accepted/`; everything
// else is read by its key. Each intake goes through the listener's own create script, so a
// listener's re-delivery or a second `recover` running at the same time finds the record and
// leaves it be: idempotent, and safe while listeners and workers run. Each intake is recovered
// alone: one that fails (a marker a newer version wrote, a Redis error on its job) is counted,
// logged with its id, alerted once (`RecoverFailed`), and the run goes on; an intake it left
// `received` with no job is queued by the worker's sweep (reconciler.ts), or by the next run.
import type { Queue } from 'bullmq';
import { type AcceptedMarker, type EndedMarker, type IntakeMarkers, intakeOfMarker } from '../intake/markers.js';
import type { IntakeObserver } from '../intake/observer.js';
import { type IntakeJobData, intakeJobOptions } from '../intake/queue.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import { ABSENT, type NoticeLedger } from '../notices/ledger.js';
import type { NoticeOutcomes } from '../notices/queue.js';
import { ItemFailures } from '../raw-store/item-failures.js';
import type { RawStore } from '../raw-store/raw-store.js';
import { decideRecovery, noticeOnRecovery, type RecoverAction } from './recover-decision.js';

export interface RecoverDeps {
  readonly store: IntakeStore;
  readonly queue: Queue<IntakeJobData>;
  readonly rawStore: RawStore;
  readonly markers: IntakeMarkers;
  readonly clock: () => number;
  readonly attempts: number;
  readonly logger: Logger;
  /** Where a restored ended intake's notice is queued again; absent: not queued (the command says so). */
  readonly notices?: NoticeOutcomes | undefined;
  /** Where a restored intake's notice is recorded decided when it is no longer owed. */
  readonly ledger: Pick<NoticeLedger, 'move'>;
  /** How long after its end an intake's notice is still worth sending (notice-lifetime.ts). */
  readonly noticeLifetimeMs: number;
  /** Counts the operator alerts (a message gone, an intake Redis lost); the command prints them instead. */
  readonly observer?: Pick<IntakeObserver, 'operatorAlert'> | undefined;
}

export type RecoverCounts = Record<RecoverAction['kind'] | 'raced' | 'expired' | 'unreadable' | 'error' | 'tombstones', number>;

export interface RecoverReport {
  readonly counts: RecoverCounts;
  /** Intakes whose message is gone: failed RawMessageMissing, an operator must look. */
  readonly missing: readonly string[];
}

export async function recoverIntakes(deps: RecoverDeps): Promise<RecoverReport> {
  const counts: RecoverCounts = {
    keep: 0,
    'restore-ended': 0,
    'restore-failed': 0,
    queue: 0,
    'fail-missing': 0,
    raced: 0,
    expired: 0,
    unreadable: 0,
    error: 0,
    tombstones: 0,
  };
  const missing: string[] = [];
  const failures = new ItemFailures(deps.logger, 'recover.intake_failed', 'RecoverFailed', (code) => deps.observer?.operatorAlert(code));
  for await (const { id } of deps.rawStore.listMarkers('accepted')) {
    try {
      const done = await recoverIntake(deps, id);
      counts[done] += 1;
      if (done === 'fail-missing') missing.push(id);
    } catch (err) {
      counts.error += 1;
      failures.record(id, err, { intakeId: id });
    }
  }
  // An erased intake's tombstone goes back into Redis first in line: erase deleted accepted/, so
  // nothing else would refuse the same message sent again after a Redis loss (a second letter).
  for await (const { id } of deps.rawStore.listMarkers('erased')) {
    try {
      const tombstone = await deps.rawStore.getMarker('erased', id);
      if (tombstone !== undefined && (await deps.store.restoreErasure(id, tombstone))) counts.tombstones += 1;
    } catch (err) {
      counts.error += 1;
      failures.record(`erased/${id}`, err, { intakeId: id });
    }
  }
  return { counts, missing };
}

/** Brings back one intake if Redis lost it; says what it did. */
export async function recoverIntake(deps: RecoverDeps, intakeId: string): Promise<keyof RecoverCounts> {
  if ((await deps.store.get(intakeId)) !== undefined) return 'keep';
  // An erased intake never comes back, whatever of it a stop half-way through the erasure left.
  if ((await deps.rawStore.getMarker('erased', intakeId)) !== undefined) return 'keep';
  const accepted = await deps.markers.accepted(intakeId);
  // Listed, then gone: retention deleted the markers of an intake that ended (accepted/ goes first).
  if (accepted === undefined) return 'expired';
  const intake = intakeOfMarker(accepted);
  if (intake === undefined) {
    deps.logger.error({ event: 'recover.unreadable_marker', intakeId }, 'the accepted marker cannot be read as an intake');
    return 'unreadable';
  }
  const [ended, letter] = await Promise.all([deps.markers.ended(intakeId), deps.markers.letter(intakeId)]);
  const blobPresent = ended === undefined ? await hasBlob(deps.rawStore, accepted.blobKey) : true;
  // Retention deletes accepted/ before letter/ and ended/ (sweep.ts): an absence read after
  // accepted/ was is trusted only while accepted/ is still there. Gone now, the intake had ended
  // and its markers expired under these reads; taking it for one that never ended would fail it
  // RawMessageMissing for nothing, or queue it again and make a second letter.
  if ((await deps.markers.accepted(intakeId)) === undefined) return 'expired';
  const action = decideRecovery({ recordPresent: false, ended, letter, blobPresent });
  if (action.kind === 'keep') return 'keep';

  const letterFields =
    action.kind === 'queue' || action.kind === 'fail-missing'
      ? action.letter === undefined
        ? {}
        : { letterId: action.letter.letterId, draftStatus: action.letter.draftStatus }
      : {};
  const created = await deps.store.create(
    { ...intake, ...letterFields },
    { headers: accepted.rawHeaders, body: { blobKey: accepted.blobKey } },
    deps.clock(),
  );
  // Someone was first (a listener's re-delivery, a worker's recovery sweep): theirs stands.
  if (!created.created) return 'raced';
  const moved = await act(deps, accepted, action);
  if (!moved) return 'raced';
  deps.logger.info({ event: 'recover.recovered', intakeId, action: action.kind }, 'intake recovered from the raw store');
  return action.kind;
}

async function act(deps: RecoverDeps, accepted: AcceptedMarker, action: Exclude<RecoverAction, { kind: 'keep' }>): Promise<boolean> {
  const { intakeId } = accepted;
  const now = deps.clock();
  switch (action.kind) {
    case 'queue': {
      // As the listener queues a new intake: the job, then the record marked queued.
      const from = typeof accepted.record.from === 'string' ? accepted.record.from : '';
      const sizeBytes = Number(accepted.record.sizeBytes ?? 0);
      await deps.queue.add('intake', { intakeId, from, sizeBytes }, intakeJobOptions(intakeId, deps.attempts));
      await deps.store.transition(intakeId, ['received'], 'queued', now);
      return true;
    }
    case 'restore-ended': {
      const { ended } = action;
      const update = {
        ...(ended.senderId === undefined ? {} : { senderId: ended.senderId }),
        ...(ended.letterId === undefined ? {} : { letterId: ended.letterId }),
        ...(ended.letterStatus === undefined ? {} : { letterStatus: ended.letterStatus }),
        ...(ended.reasonCode === undefined ? {} : { reasonCode: ended.reasonCode }),
        ...(ended.reason === undefined ? {} : { reason: ended.reason }),
        ...(ended.simulatedLetter === undefined ? {} : { simulatedLetter: ended.simulatedLetter }),
      };
      const result = await deps.store.transition(intakeId, ['received'], ended.outcome, now, update);
      if (!result.ok) return false;
      if (noticeOnRecovery(ended, now, deps.noticeLifetimeMs) === 'decided') await recordNoticeDecided(deps, ended, now);
      else if (deps.notices !== undefined) await deps.notices.onOutcome(intakeId, ended.outcome, ended.senderId);
      return true;
    }
    case 'restore-failed': {
      const { ended } = action;
      const update = {
        errorCode: ended.errorCode ?? 'Recovered',
        reason: ended.reason ?? 'failed before Redis lost the record',
        ...(ended.letterId === undefined ? {} : { letterId: ended.letterId }),
        ...(ended.senderId === undefined ? {} : { senderId: ended.senderId }),
      };
      if (!(await deps.store.transition(intakeId, ['received'], 'failed', now, update)).ok) return false;
      // One still owed is left to the owed-notice sweep (reconciler.ts); an entry keeps it from the rest.
      if (noticeOnRecovery(ended, now, deps.noticeLifetimeMs) === 'decided') await recordNoticeDecided(deps, ended, now);
      return true;
    }
    case 'fail-missing': {
      const reason = `the raw message ${accepted.blobKey} is missing from the raw store; the intake was answered 250 and never ended`;
      deps.logger.error({ event: 'recover.raw_message_missing', intakeId, blobKey: accepted.blobKey }, reason);
      deps.observer?.operatorAlert('RawMessageMissing');
      return (await deps.store.transition(intakeId, ['received'], 'failed', now, { errorCode: 'RawMessageMissing', reason })).ok;
    }
  }
}

/** The notice's entry, for an intake whose notice was decided before Redis lost its record. */
async function recordNoticeDecided(deps: RecoverDeps, ended: EndedMarker, now: number): Promise<void> {
  const reason = `restored by recover: the intake ended at ${new Date(ended.at).toISOString()} with its notice ${ended.notice ?? 'not recorded'}; not sent again`;
  await deps.ledger.move(ended.intakeId, ended.outcome, [ABSENT], { state: 'unconfirmed', at: now, reason });
}

async function hasBlob(store: RawStore, blobKey: string): Promise<boolean> {
  const stream = await store.read(blobKey);
  stream?.destroy();
  return stream !== undefined;
}
