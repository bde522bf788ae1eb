// What every role does with its Redis connections (opened by src/redis/connections.ts): log
// their outages sparingly, wait for Redis at start; and the arguments of a durable redis-server
// (the embedded one is in embedded-redis.ts). Durable acceptance needs appendonly + appendfsync
// always + noeviction.
import { createServer } from 'node:net';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connections.js';
import { describeTopology, type RedisTopology, TOPOLOGY_VARIABLES } from '../redis/topology.js';

/** While Redis stays away, its errors are logged at most this often (ioredis retries every ≤ 2 s). */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Logs a connection's errors where an operator sees them (warn, with the error), once when an
 * outage starts and then every 30 s while it lasts, and the recovery with the count.
 */
export function logConnectionErrors(redis: RedisClient, logger: Logger, event: string): void {
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
export async function waitForRedis(redis: RedisClient, topology: RedisTopology, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (redis.status === 'ready' && (await redis.ping()) === 'PONG') return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      throw new StartupError(
        `Redis at ${describeTopology(topology)} did not answer within ${timeoutMs} ms (${TOPOLOGY_VARIABLES.join(', ')}, REDIS_START_TIMEOUT_MS)`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
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
