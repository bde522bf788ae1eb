// The raw store's `ended/<id>` marker, written after the outcome is in Redis and before the job
// completes: after a Redis loss, recover brings the intake back ended instead of running it again
// (docs/design.md §13). Written from the record as Redis holds it, notice state included: the one
// the end's transition answered with, or read when the caller has none.
import { ENDED_OUTCOMES, type EndedMarker } from '../intake/markers.js';
import type { NoticeState } from '../intake/notice-fields.js';
import type { IntakeRecord } from '../intake/record.js';
import type { Logger } from '../log.js';
import type { Outcome } from './outcome.js';
import type { ProcessorDeps } from './run.js';
import { errorText } from './run.js';

const RETRY_MS = 5000;

function isEndedOutcome(state: string): state is EndedMarker['outcome'] {
  return (ENDED_OUTCOMES as readonly string[]).includes(state);
}

export function endedMarkerOf(
  record: IntakeRecord & { readonly state: EndedMarker['outcome'] },
  at: number,
  /** The notice's state when the caller knows it later than the record does. */
  knownNotice?: NoticeState,
): EndedMarker {
  const notice = knownNotice ?? record.notices?.[record.state]?.state;
  const optional = {
    letterId: record.letterId,
    letterStatus: record.letterStatus,
    senderId: record.senderId,
    reasonCode: record.reasonCode,
    reason: record.reason,
    errorCode: record.errorCode,
    simulatedLetter: record.simulatedLetter,
    notice,
  };
  const present = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { v: 1, intakeId: record.intakeId, outcome: record.state, at, ...present };
}

/**
 * Writes `ended/` for an intake Redis holds ended; undefined when written (or no store markers),
 * else the outcome that stands instead: a job that comes back without spending an attempt.
 * A failed intake's marker that cannot be written is an operator's alert, not a retry (a retry
 * would claim the failed intake and run it again).
 */
export async function markEnded(
  deps: ProcessorDeps,
  intakeId: string,
  log: Logger,
  /**
   * The record as Redis held it when the end's transition answered, and the notice's state as
   * the end's notice call left it (later than the record's): not read again.
   */
  known?: { readonly record: IntakeRecord; readonly notice?: NoticeState | undefined },
): Promise<Outcome | undefined> {
  if (deps.markers === undefined) return undefined;
  let outcome: EndedMarker['outcome'] | undefined;
  try {
    const record = known?.record ?? (await deps.store.get(intakeId));
    const state = record?.state;
    if (record === undefined || state === undefined || !isEndedOutcome(state)) return undefined;
    outcome = state;
    await deps.markers.putEnded(endedMarkerOf({ ...record, state }, deps.clock(), known?.notice));
    return undefined;
  } catch (err) {
    const reason = `the intake is ${outcome ?? 'ended'}, but its ended marker could not be written: ${errorText(err)}`;
    log.error({ err, event: 'intake.end_not_marked', outcome }, reason);
    if (outcome === 'failed') {
      // Without its marker a Redis loss would bring the failed intake back queued: an operator must know.
      deps.observer.operatorAlert('EndNotMarked');
      return undefined;
    }
    return { kind: 'end-not-marked', retryInMs: RETRY_MS, reason };
  }
}
