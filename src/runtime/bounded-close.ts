// Shutdown waits that cannot hang. BullMQ's close() waits for Redis (its last commands, its
// connections' end) with no bound: with Redis gone it never returns. Each step here waits at most
// its bound, and at most UNREACHABLE_STEP_MS while the role's connection is not ready, since
// nothing that needs Redis can finish then. A step left unfinished is ended by the process's exit.
import type { RedisClient } from '../redis/connections.js';

/** The bound on each closing step while Redis does not answer. */
export const UNREACHABLE_STEP_MS = 1000;

/** A closing step (a queue's close, a sweep's round) sends a few commands: seconds are plenty while Redis answers. */
export const CLOSE_STEP_BOUND_MS = 5000;

/** Waits for `work` at most `ms`: true when it ended (a rejection within the bound is thrown). */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  work.catch(() => undefined); // a failure after the bound is nobody's to handle
  try {
    return await Promise.race([work.then(() => true), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** `boundMs` while Redis answers on `connection`, UNREACHABLE_STEP_MS while it does not. */
export function stepBound(connection: Pick<RedisClient, 'status'>, boundMs: number): number {
  return connection.status === 'ready' ? boundMs : Math.min(boundMs, UNREACHABLE_STEP_MS);
}
