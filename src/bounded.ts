// Every wait has a bound (a probe, a scrape, a store call, a DNS or Redis answer): the one helper
// that races a promise against a timer. Callers turn the TimeoutError into their own failure.

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Resolves like `promise`, or rejects after `ms` with a TimeoutError naming `what`, or with
 * `timedOut()`'s error: called in the timer itself, so a caller can mark the moment it answered.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string, timedOut?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut?.() ?? new TimeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
