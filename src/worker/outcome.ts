// What one run of an intake's job comes to, as a value (docs/design.md §8): the intake's work
// returns an Outcome and settle-job.ts alone turns it into BullMQ's language. Every kind the
// worker distinguishes is here; an exception escaping the work is unexpected (a Redis error
// while an outcome is recorded) and BullMQ retries it.

/** What a job returns when its intake ended without a failure (the job's `returnvalue`). */
export type JobResult =
  | { readonly outcome: 'submitted'; readonly letterId: string }
  | { readonly outcome: 'rejected'; readonly reasonCode: string }
  | { readonly outcome: 'simulated' };

export type Outcome =
  /** The letter is submitted and recorded, its notice queued: the job completes. */
  | { readonly kind: 'submitted'; readonly letterId: string }
  /** The intake is rejected and recorded, its notice queued: the job completes (a rejection is a normal end). */
  | { readonly kind: 'rejected'; readonly reasonCode: string }
  /** A dry run passed every check and is recorded simulated, its notice queued: the job completes, nothing was sent. */
  | { readonly kind: 'simulated' }
  /** The intake is recorded failed (replayable): the job fails without another attempt. */
  | { readonly kind: 'failed'; readonly reason: string }
  /** The job does not fit its intake (no record, or a state this run may not move): the job fails, nothing is recorded. */
  | { readonly kind: 'stale-job'; readonly reason: string }
  /** A transient failure (Redis trouble, a defect, an API blip): BullMQ waits the backoff and spends an attempt. */
  | { readonly kind: 'retry'; readonly error: unknown }
  /** Another worker holds the intake: this run stops, writing nothing. */
  | { readonly kind: 'ownership-lost'; readonly reason: string }
  /** The outcome is recorded but its notice is not queued: the job comes back later, no attempt spent. */
  | { readonly kind: 'notice-not-queued'; readonly retryInMs: number; readonly reason: string }
  /**
   * A write this run could not do without failed (any error recording the submitted letter, or
   * Redis refusing the claim): the job comes back later, no attempt spent, so a letter the API
   * holds is never reported "not created".
   */
  | { readonly kind: 'storage-later'; readonly retryInMs: number; readonly reason: string }
  /** The outcome is recorded but the raw store's `ended/` marker is not written: the job comes back later, no attempt spent. */
  | { readonly kind: 'end-not-marked'; readonly retryInMs: number; readonly reason: string }
  /** A PDF waits for the checker pool's re-check alone: the job comes back later, no attempt spent. */
  | { readonly kind: 'pdf-recheck-later'; readonly retryInMs: number; readonly reason: string }
  /** Redis is away or changing primaries (redis-errors.ts): the job comes back soon, no attempt spent. */
  | { readonly kind: 'redis-unavailable'; readonly retryInMs: number; readonly reason: string }
  /** A checkpoint (or a letter id the claim read) is not on REDIS_REPLICAS_ACK replicas yet: the API call after it waits, the job comes back soon, no attempt spent. */
  | { readonly kind: 'replicas-behind'; readonly retryInMs: number; readonly reason: string }
  /**
   * clamd (CLAMD_URL) did not answer: the job comes back later, no attempt spent. Not a `retryInMs`
   * return: the scanner raises its own alert after CLAMD_ALERT_AFTER_MS (scan/malware-scan.ts).
   */
  | { readonly kind: 'scanner-unavailable'; readonly againInMs: number; readonly reason: string }
  /** Shutdown aborted the work: the job goes back to the queue now, no attempt spent. */
  | { readonly kind: 'shutting-down'; readonly reason: string }
  /** The Sender API asked for a pause (Retry-After): this job waits, its API's circuit holds the others for it, no attempt spent. */
  | { readonly kind: 'rate-limited'; readonly waitMs: number }
  /** The intake's Sender API is held (api-circuit.ts: its circuit open, or its Retry-After running): this job waits in the delayed set, no attempt spent. */
  | { readonly kind: 'api-outage'; readonly waitMs: number };
