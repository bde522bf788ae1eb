// At the start of every role: the Redis durability checks of `doctor`, logged as warnings. A
// role still starts (the operator may know better), but never silently on a Redis that can
// lose mail already answered 250.

import { withTimeout } from '../bounded.js';
import { judgeRedisDurability } from '../doctor/redis-checks.js';
import { readRedisFacts } from '../doctor/redis-facts.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connections.js';
import { prefixServer } from '../redis/prefix-shard.js';

export async function warnAboutRedisDurability(redis: RedisClient, prefix: string, logger: Logger): Promise<void> {
  try {
    const facts = await withTimeout(
      prefixServer(redis, prefix).then((server) => readRedisFacts(server)),
      3000,
      'Redis INFO',
    );
    for (const check of judgeRedisDurability(facts)) {
      if (check.status !== 'ok') {
        logger.warn({ event: 'redis.durability', check: check.name, status: check.status }, `Redis ${check.name}: ${check.detail}`);
      }
    }
  } catch (err) {
    logger.warn({ event: 'redis.durability', err }, 'Redis durability settings could not be read; run letter-intake doctor');
  }
}
