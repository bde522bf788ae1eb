// How long a listener process that died waits before it is started again: 250 ms, doubling with
// each exit that followed a short run, up to 30 s. A process that ran for a minute starts the
// count again, so one crash a day restarts at once and a crash loop does not spin.

export const FIRST_RESTART_DELAY_MS = 250;
export const MAX_RESTART_DELAY_MS = 30_000;
/** A run at least this long is not part of a crash loop. */
export const STABLE_RUN_MS = 60_000;

/** The delay before the next start, after `quickExits` exits in a row that each followed a short run. */
export function restartDelayMs(quickExits: number): number {
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, quickExits - 1));
}

/** The count of quick exits in a row after an exit that ended a run of `ranMs`. */
export function quickExitsAfter(previous: number, ranMs: number): number {
  return ranMs >= STABLE_RUN_MS ? 1 : previous + 1;
}
