// Exponential backoff with jitter for retryable failures (network, 5xx): attempt n waits
// base·2^(n-1), capped, scaled by a random factor in [0.5, 1) so that workers retrying the
// same outage do not return in lockstep. Pure: the random number comes in.

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

export function backoffDelayMs(attemptsMade: number, policy: BackoffPolicy, random: number): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(exponent, 30));
  return Math.round(ceiling * (0.5 + random / 2));
}
