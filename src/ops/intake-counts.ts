// The counts at the top of the intake pages: how many intakes ended in each final state (and
// for each reason) in the last hour and day, and how many are in progress now.
import type { IntakeState } from '../intake/record.js';
import type { EndedCount } from '../intake/search-index.js';

export interface StateCount {
  readonly state: IntakeState;
  readonly lastHour: number | undefined;
  readonly lastDay: number | undefined;
  /** Intakes in this state now (in-progress states only: ended ones expire over time). */
  readonly now: number | undefined;
}

export interface IntakeCounts {
  readonly byState: readonly StateCount[];
  readonly byReason: readonly EndedCount[];
}

const ENDED: readonly IntakeState[] = ['submitted', 'rejected', 'failed', 'simulated'];
const IN_PROGRESS: readonly IntakeState[] = ['received', 'queued', 'processing'];

export function summarizeCounts(ended: readonly EndedCount[], current: ReadonlyMap<IntakeState, number>): IntakeCounts {
  const sum = (state: IntakeState, pick: (c: EndedCount) => number): number =>
    ended.filter((c) => c.state === state).reduce((total, c) => total + pick(c), 0);
  return {
    byState: [
      ...ENDED.map((state) => ({ state, lastHour: sum(state, (c) => c.lastHour), lastDay: sum(state, (c) => c.lastDay), now: undefined })),
      ...IN_PROGRESS.map((state) => ({ state, lastHour: undefined, lastDay: undefined, now: current.get(state) ?? 0 })),
    ],
    byReason: ended.filter((c) => c.state !== 'submitted'),
  };
}
