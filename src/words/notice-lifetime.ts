// How long a notice can take from its queueing to its last word (pure): what an intake record
// must outlive, or the notice finds no record and is dropped without a trace. Start refuses a
// RECORD_RETENTION_DAYS shorter than this (config.ts).

/** The notice job's first retry delay; BullMQ doubles it on each retry (`exponential`). */
export const NOTICE_BACKOFF_MS = 1000;

/** The abandoned-notice sweep looks at notice jobs failed this recently (notice-sweep.ts). */
export const NOTICE_SWEEP_LOOKBACK_MS = 3600_000;

/** SMTP replies one attempt waits for, each bounded by NOTICE_TIMEOUT_MS (greeting, EHLO, MAIL, RCPT, DATA, end of data). */
const REPLIES_PER_ATTEMPT = 6;

/** A record is kept at least a day: a notice may wait in a queue behind others, beyond its own time. */
const FLOOR_MS = 24 * 3600 * 1000;

export interface NoticeSettings {
  readonly attempts: number;
  readonly timeoutMs: number;
}

/** The longest a notice takes: every retry delay, every attempt at its bound, then the sweep's look-back. */
export function noticeLifetimeMs(settings: NoticeSettings): number {
  const retries = Math.max(0, settings.attempts - 1);
  const waits = NOTICE_BACKOFF_MS * (2 ** retries - 1);
  const attempts = settings.attempts * REPLIES_PER_ATTEMPT * settings.timeoutMs;
  return waits + attempts + NOTICE_SWEEP_LOOKBACK_MS;
}

/** The shortest record retention start accepts. */
export function minimumRecordRetentionMs(settings: NoticeSettings): number {
  return Math.max(FLOOR_MS, noticeLifetimeMs(settings));
}
