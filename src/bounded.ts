// Every wait has a bound (a probe, a scrape, a store call, a DNS or Redis answer): the one helper
// that races a promise against a timer. Callers turn the TimeoutError into their own failure.

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** Resolves like `promise`, or rejects with a TimeoutError naming `what` after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
