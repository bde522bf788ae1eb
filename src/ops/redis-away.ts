// The admin pages' answer while Redis does not: every page and the dashboard's API read Redis
// over a connection that waits for it (BullMQ's setting), so a request would hang for the whole
// outage, and a stalled server (connected but silent) looks ready to the connection. Each
// request first asks RedisWatch (a shared PING within 0.7 s), and is bounded as a whole: a page
// that still waits on Redis after PAGE_BOUND_MS gets the same 503. The 503 says that Redis is
// not answering and since when, with a Retry-After; /admin/readyz and the logs say more.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, page } from './html.js';
import type { RedisSilence, RedisWatch } from './redis-watch.js';

const RETRY_AFTER_SECONDS = 5;
/** The whole request's bound (the PING's included), under the 2 s an operator waits for a page. */
export const PAGE_BOUND_MS = 1500;

/**
 * onRequest and onResponse hooks for the admin routes: a 503 when Redis does not answer, before
 * the page or while it waits; nothing otherwise. Paths in `exempt` (which read no Redis) pass.
 */
export function answerWhileRedisAway(watch: RedisWatch, clock: () => number, exempt: readonly string[] = []) {
  const deadlines = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  const clear = async (request: FastifyRequest): Promise<void> => {
    clearTimeout(deadlines.get(request));
    deadlines.delete(request);
  };
  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (exempt.includes(request.url.split('?')[0] ?? '')) return;
    const startedAt = clock();
    deadlines.set(
      request,
      setTimeout(() => {
        if (!reply.sent) void answerSilence(request, reply, watch.noteSilence(startedAt), clock());
      }, PAGE_BOUND_MS),
    );
    const silence = await watch.silence();
    if (silence === undefined || reply.sent) return;
    await clear(request);
    await answerSilence(request, reply, silence, clock());
  };
  return { onRequest, onResponse: clear, onRequestAbort: clear };
}

async function answerSilence(request: FastifyRequest, reply: FastifyReply, silence: RedisSilence, now: number): Promise<void> {
  const since = new Date(silence.since).toISOString();
  const seconds = Math.max(0, Math.round((now - silence.since) / 1000));
  const state = silence.connection === 'ready' ? 'connected but silent' : `connection ${silence.connection}`;
  const message = `Redis is not answering since ${since} (${seconds} s, ${state}): intakes and the queue cannot be read. Try again in a moment; /admin/readyz names what is wrong.`;
  request.log.warn(
    { event: 'ops.redis_not_answering', since, connection: silence.connection, url: request.url },
    'admin page answered 503',
  );
  void reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
  if ((request.headers.accept ?? '').includes('text/html')) {
    await reply.type('text/html; charset=utf-8').send(page('Redis is not answering', `<p>${escapeHtml(message)}</p>`));
    return;
  }
  await reply.send({ error: message, redisNotAnsweringSince: since });
}
