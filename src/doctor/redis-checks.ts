// Redis as durable acceptance needs it (docs/deploying.md, "Redis durability"): the 250 promises the
// message is stored, so writes must reach the disk before Redis answers and never be evicted.

import type { SlotShard } from '../redis/prefix-shard.js';
import { hostPortText } from '../redis/topology.js';
import type { RedisFacts } from './redis-facts.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Redis';
const MiB = 1024 * 1024;
/** Below this share of free memory under the limit, a burst of large messages can fill Redis. */
const HEADROOM_WARN = 0.25;

/** The durability checks every role also runs at start (as warnings). */
export function judgeRedisDurability(facts: RedisFacts): CheckResult[] {
  const results: CheckResult[] = [];
  results.push(
    facts.aofEnabled
      ? ok(AREA, 'appendonly', 'yes')
      : fail(AREA, 'appendonly', 'no: accepted mail lives in memory only and a Redis crash loses it; set appendonly yes'),
  );
  if (facts.appendfsync === 'always') results.push(ok(AREA, 'appendfsync', 'always'));
  else if (facts.appendfsync === 'everysec') {
    results.push(
      warn(
        AREA,
        'appendfsync',
        'everysec: a Redis crash can lose up to a second of mail already answered 250; set appendfsync always (or use replicas and WAIT)',
      ),
    );
  } else if (facts.appendfsync === undefined) {
    results.push(warn(AREA, 'appendfsync', 'unknown (CONFIG GET refused): make sure it is always'));
  } else {
    results.push(
      fail(
        AREA,
        'appendfsync',
        `${facts.appendfsync}: writes reach the disk when the OS decides, so a crash loses accepted mail; set appendfsync always`,
      ),
    );
  }
  results.push(
    facts.maxmemoryPolicy === 'noeviction'
      ? ok(AREA, 'maxmemory-policy', 'noeviction')
      : fail(
          AREA,
          'maxmemory-policy',
          `${facts.maxmemoryPolicy}: Redis may evict stored messages and records silently; set maxmemory-policy noeviction`,
        ),
  );
  return results;
}

/** Memory headroom: used memory against maxmemory, or against the machine when there is no limit. */
export function judgeRedisHeadroom(facts: RedisFacts): CheckResult {
  const limit = facts.maxmemory > 0 ? facts.maxmemory : facts.systemMemory;
  const what = facts.maxmemory > 0 ? 'maxmemory' : 'the machine (no maxmemory set)';
  if (limit <= 0) return warn(AREA, 'memory headroom', `used ${mib(facts.usedMemory)} with no known limit; set maxmemory`);
  const free = 1 - facts.usedMemory / limit;
  const detail = `used ${mib(facts.usedMemory)} of ${mib(limit)} on ${what}, ${Math.round(free * 100)}% free`;
  if (free <= 0.05)
    return fail(
      AREA,
      'memory headroom',
      `${detail}: new mail will be refused (451) when it is full; raise maxmemory or shorten RAW_RETENTION_DAYS`,
    );
  if (free < HEADROOM_WARN) return warn(AREA, 'memory headroom', `${detail}: raise maxmemory or shorten RAW_RETENTION_DAYS`);
  return ok(AREA, 'memory headroom', detail);
}

export function judgeRedis(facts: RedisFacts, where: string): CheckResult[] {
  return [ok(AREA, 'reachable', `Redis ${facts.version} at ${where}`), ...judgeRedisDurability(facts), judgeRedisHeadroom(facts)];
}

/** On a cluster: which master carries the prefix's slot, and whether it has the replicas REDIS_REPLICAS_ACK waits for. */
export function judgeShard(shard: SlotShard, prefix: string, replicasAck: number): CheckResult {
  const replicas = shard.replicas.length === 0 ? 'no replicas' : `replicas ${shard.replicas.map(hostPortText).join(', ')}`;
  const detail = `slot ${shard.slot} of "${prefix}" on master ${hostPortText(shard.master)}, ${replicas}`;
  if (shard.replicas.length < replicasAck) {
    return fail(
      AREA,
      'cluster slot',
      `${detail}: REDIS_REPLICAS_ACK=${replicasAck} waits for more replicas than this shard has, so every message gets 451; add replicas to this shard or lower REDIS_REPLICAS_ACK`,
    );
  }
  return ok(AREA, 'cluster slot', detail);
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
