// The I/O half of /readyz: ask Redis and the queue, each within a short bound, and turn every
// outcome (answer, error, silence) into a DependencyCheck. Never throws, never hangs.
import type { Queue } from 'bullmq';
import { withTimeout } from '../bounded.js';
import type { RedisClient } from '../redis/connections.js';
import type { DependencyCheck, QueueCheck } from './readiness.js';

export const CHECK_TIMEOUT_MS = 1000;

const LOST = new Set(['reconnecting', 'close', 'end']);
const COUNTED_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

export async function checkRedis(redis: RedisClient | undefined, timeoutMs = CHECK_TIMEOUT_MS): Promise<DependencyCheck> {
  if (redis === undefined) return { ok: true, skipped: true };
  // A connection that was lost says so at once; one still connecting gets the PING's bound.
  if (LOST.has(redis.status)) return { ok: false, error: `Redis connection is ${redis.status}` };
  try {
    const answer = await withTimeout(redis.ping(), timeoutMs, 'Redis PING');
    return answer === 'PONG' ? { ok: true } : { ok: false, error: `Redis answered PING with ${answer}` };
  } catch (err) {
    return { ok: false, error: `Redis: ${messageOf(err)}` };
  }
}

export async function checkQueue(queue: Queue | undefined, timeoutMs = CHECK_TIMEOUT_MS): Promise<QueueCheck> {
  if (queue === undefined) return { ok: true, skipped: true };
  try {
    const counts = await withTimeout(queue.getJobCounts(...COUNTED_STATES), timeoutMs, 'queue job counts');
    return { ok: true, counts };
  } catch (err) {
    return { ok: false, error: `queue ${queue.name}: ${messageOf(err)}` };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
