// The Redis an operator command (`status`, `replay`) reads: the configured one (REDIS_URL,
// REDIS_SENTINELS), or the one a running `npm start` embedded (found through DATA_DIR). Either it
// answers at once, or the command says so in one sentence — a refused connection is not retried
// for seconds, and ioredis's own "Unhandled error event" lines never reach the terminal.

import type { Config } from '../config.js';
import { StartupError } from '../errors.js';
import type { RedisClient } from '../redis/connections.js';
import { openRedis } from '../redis/connections.js';
import { describeTopology, type RedisTopology, TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { embeddedRedisUrl } from './embedded-redis.js';

/** How long a command waits for Redis to answer before it gives up. */
const CONNECT_TIMEOUT_MS = 5000;
const START_HINT = `is \`npm start\` running? (elsewhere, set ${TOPOLOGY_VARIABLES.join(' or ')})`;

export function commandRedisTopology(config: Pick<Config, 'redisTopology' | 'dataDir'>): RedisTopology {
  if (config.redisTopology !== undefined) return config.redisTopology;
  const url = embeddedRedisUrl(config.dataDir);
  if (url === undefined)
    throw new StartupError(
      `no Redis to read: ${TOPOLOGY_VARIABLES.join(' and ')} are unset and no running \`npm start\` was found; ${START_HINT}`,
    );
  return { kind: 'standalone', url, tls: undefined };
}

/** A connection that is ready, or a StartupError naming the Redis and what to check. */
export async function connectForCommand(topology: RedisTopology, commandTimeoutMs: number): Promise<RedisClient> {
  const redis = openRedis(topology, { kind: 'producer', commandTimeoutMs });
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
  throw new StartupError(`Redis at ${describeTopology(topology)} did not answer (${why}): ${START_HINT}`);
}
