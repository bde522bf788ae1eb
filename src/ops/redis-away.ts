// The admin pages' answer while Redis is away: every page and the dashboard's API read Redis
// over a connection that waits for it to come back (BullMQ's setting), so a request would hang
// for the whole outage. A connection that is lost answers at once, one still being made after
// half a second at most: 503, saying why, with a Retry-After; /readyz and the logs say more.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RedisClient } from '../redis/connections.js';
import { escapeHtml, page } from './html.js';

const RETRY_AFTER_SECONDS = 5;
/** A connection still being made (at start, or a reconnect attempt) gets this long to become ready. */
const CONNECTING_GRACE_MS = 500;
const POLL_MS = 25;
const LOST = new Set(['reconnecting', 'close', 'end']);

/** Ready now, or within the grace unless the connection is lost; never waits longer. */
async function readySoon(redis: Pick<RedisClient, 'status'>): Promise<boolean> {
  for (let waited = 0; ; waited += POLL_MS) {
    if (redis.status === 'ready') return true;
    if (LOST.has(redis.status) || waited >= CONNECTING_GRACE_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** An onRequest hook for the admin routes: replies 503 when `redis` is not ready, else does nothing. Paths in `exempt` pass. */
export function answerWhileRedisAway(redis: Pick<RedisClient, 'status'>, exempt: readonly string[] = []) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (exempt.includes(request.url.split('?')[0] ?? '')) return;
    if (await readySoon(redis)) return;
    const message = `Redis is not reachable (connection ${redis.status}): intakes and the queue cannot be read. Try again in a moment; /readyz names what is wrong.`;
    void reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
    if ((request.headers.accept ?? '').includes('text/html')) {
      await reply.type('text/html; charset=utf-8').send(page('Redis is not reachable', `<p>${escapeHtml(message)}</p>`));
      return;
    }
    await reply.send({ error: message });
  };
}
