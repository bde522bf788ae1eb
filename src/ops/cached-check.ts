// A check whose answer is reused for a while: /readyz is unauthenticated and polled every few
// seconds by every orchestrator and load balancer, and a probe that writes (the raw store's)
// must not turn a flood of requests into a flood of writes. Callers during a probe share it.

export interface CachedCheck<T> {
  /** The last answer if younger than the bound, else a fresh one. */
  get(): Promise<T>;
}

export function cachedCheck<T>(check: () => Promise<T>, maxAgeMs: number, clock: () => number): CachedCheck<T> {
  let last: { readonly at: number; readonly answer: Promise<T> } | undefined;
  return {
    get() {
      const now = clock();
      if (last === undefined || now - last.at >= maxAgeMs || now < last.at) last = { at: now, answer: check() };
      return last.answer;
    },
  };
}
