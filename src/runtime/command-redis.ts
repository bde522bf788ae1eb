// The Redis an operator command (`status`, `replay`) reads: REDIS_URL, or the one a running
// `npm start` embedded (found through DATA_DIR). Either it answers at once, or the command says
// so in one sentence — a refused connection is not retried for seconds, and ioredis's own
// "Unhandled error event" lines never reach the terminal.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { StartupError } from '../errors.js';
import { embeddedRedisUrl } from './embedded-redis.js';
import { producerConnection } from './redis.js';

/** How long a command waits for Redis to answer before it gives up. */
const CONNECT_TIMEOUT_MS = 5000;
const START_HINT = 'is `npm start` running? (elsewhere, set REDIS_URL)';

export function commandRedisUrl(config: Pick<Config, 'redisUrl' | 'dataDir'>): string {
  const url = config.redisUrl ?? embeddedRedisUrl(config.dataDir);
  if (url === undefined)
    throw new StartupError(`no Redis to read: REDIS_URL is unset and no running \`npm start\` was found; ${START_HINT}`);
  return url;
}

/** A connection that is ready, or a StartupError naming the Redis and what to check. */
export async function connectForCommand(url: string, commandTimeoutMs: number): Promise<Redis> {
  const redis = producerConnection(url, commandTimeoutMs);
  let lastError: Error | undefined;
  // Listening is what keeps ioredis from printing every failed reconnect as unhandled.
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  const ready = await new Promise<boolean>((settle) => {
    const timer = setTimeout(() => settle(false), CONNECT_TIMEOUT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      settle(true);
    });
    redis.once('error', () => {
      clearTimeout(timer);
      settle(false);
    });
  });
  if (ready) return redis;
  redis.disconnect();
  const why = lastError === undefined ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s` : lastError.message;
  throw new StartupError(`Redis at ${redactUrl(url)} did not answer (${why}): ${START_HINT}`);
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
