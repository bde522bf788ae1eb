// Redis connections for each role, and the arguments of a durable redis-server (the embedded one
// is in embedded-redis.ts). Durable acceptance needs appendonly + appendfsync always + noeviction.
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * The producer (listener) fails fast when Redis is away, so the client gets 451 at once; and a
 * Redis that is connected but stalled answers no command later than `commandTimeoutMs`.
 */
export function producerConnection(url: string, commandTimeoutMs: number): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy,
    connectTimeout: 5000,
    commandTimeout: commandTimeoutMs,
  });
}

/** Workers and queue readers wait for Redis to come back (BullMQ requires this setting). */
export function workerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, retryStrategy, connectTimeout: 5000 });
}

/** Reconnect for ever, at most every 2 s: Redis coming back must need nobody's help. */
function retryStrategy(times: number): number {
  return Math.min(times * 200, 2000);
}

/** While Redis stays away, its errors are logged at most this often (ioredis retries every ≤ 2 s). */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Logs a connection's errors where an operator sees them (warn, with the error), once when an
 * outage starts and then every 30 s while it lasts, and the recovery with the count.
 */
export function logConnectionErrors(redis: Redis, logger: Logger, event: string): void {
  let failures = 0;
  let lastLoggedAt = Number.NEGATIVE_INFINITY;
  redis.on('error', (err: Error) => {
    failures += 1;
    const now = performance.now();
    if (now - lastLoggedAt < ERROR_LOG_INTERVAL_MS) return;
    lastLoggedAt = now;
    logger.warn({ err, event, failures }, 'redis connection error');
  });
  redis.on('ready', () => {
    if (failures > 0) logger.warn({ event: `${event}_recovered`, failures }, 'redis connection is back');
    failures = 0;
    lastLoggedAt = Number.NEGATIVE_INFINITY;
  });
}

/** Waits until Redis answers PING, or fails with a clear message after `timeoutMs`. */
export async function waitForRedis(redis: Redis, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (redis.status === 'ready' && (await redis.ping()) === 'PONG') return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      throw new StartupError(`Redis at ${redactUrl(url)} did not answer within ${timeoutMs} ms (REDIS_URL, REDIS_START_TIMEOUT_MS)`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/**
 * A redis-server on loopback that keeps what it acknowledged: every write fsynced to the
 * append-only file, no eviction (the settings docs/deploying.md asks of a production Redis).
 */
export function durableRedisArgs(port: number, dir: string): string[] {
  return [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
  ];
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => ok(port));
    });
  });
}
