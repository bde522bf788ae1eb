// Error events that repeat for as long as an outage lasts (a queue's or a worker's `error`
// while Redis is away, once per reconnect attempt) are logged like the connection's own
// (redis.ts): the first at once with its error, then at most one line per interval carrying the
// count of those not logged, so an outage is seen without a stack every two seconds.
import type { Logger } from '../log.js';

export const SPARING_LOG_INTERVAL_MS = 30_000;

export function logErrorsSparingly(
  logger: Logger,
  event: string,
  message: string,
  intervalMs = SPARING_LOG_INTERVAL_MS,
  clock: () => number = () => performance.now(),
): (err: Error) => void {
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return (err) => {
    const now = clock();
    if (now - lastLoggedAt < intervalMs) {
      unlogged += 1;
      return;
    }
    lastLoggedAt = now;
    logger.warn({ err, event, ...(unlogged > 0 ? { unlogged } : {}) }, message);
    unlogged = 0;
  };
}
