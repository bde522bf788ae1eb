// Whether this worker process has stopped taking jobs (pure). A BullMQ worker can stop fetching
// without a word, its main loop parked on a Redis connection that will not come back (reported
// after Sentinel failovers): jobs wait, the worker has room, and none starts. The worker's parts
// look at the queue every interval and compare each look with the one before.

/** What one look at the queue and at this worker saw. */
export interface FetchLook {
  /** When, in ms on a monotonic clock (performance.now()). */
  readonly at: number;
  /** Jobs ready for any worker: BullMQ's wait list and prioritized set, and delayed jobs already due. */
  readonly ready: number;
  /** Jobs this BullMQ worker has started since it was made: a counter. */
  readonly started: number;
  /** Jobs running in this worker at the look. */
  readonly running: number;
}

/**
 * True when two looks at least `atLeastMs` apart both saw jobs ready and room in this worker
 * (fewer than `concurrency` running), and it started no job between them. A worker that fetches
 * takes a ready job as soon as it has room (or within its own retry delays, shorter than the
 * interval). Nothing holds the whole queue: a Sender API's pause holds its own jobs, each taken
 * and put back in the delayed set.
 */
export function stoppedFetching(before: FetchLook, now: FetchLook, concurrency: number, atLeastMs: number): boolean {
  const waitedWithRoom = (look: FetchLook) => look.ready > 0 && look.running < concurrency;
  return now.at - before.at >= atLeastMs && waitedWithRoom(before) && waitedWithRoom(now) && now.started === before.started;
}
