// The admin pages' answer while Redis is away: every page and the dashboard's API read Redis
// over a connection that waits for it to come back (BullMQ's setting), so a request would hang
// for the whole outage. A connection that is not ready answers at once: 503, saying why, with
// a Retry-After; /readyz and the logs carry the details.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { escapeHtml, page } from './html.js';

const RETRY_AFTER_SECONDS = 5;

/** An onRequest hook for the admin routes: replies 503 when `redis` is not ready, else does nothing. */
export function answerWhileRedisAway(redis: Pick<Redis, 'status'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (redis.status === 'ready') return;
    const message = `Redis is not reachable (connection ${redis.status}): intakes and the queue cannot be read. Try again in a moment; /readyz names what is wrong.`;
    void reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
    if ((request.headers.accept ?? '').includes('text/html')) {
      await reply.type('text/html; charset=utf-8').send(page('Redis is not reachable', `<p>${escapeHtml(message)}</p>`));
      return;
    }
    await reply.send({ error: message });
  };
}
