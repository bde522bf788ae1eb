// Reads what the Redis durability checks judge: INFO (server, persistence, memory) and
// CONFIG GET appendfsync. Managed Redis services often disable CONFIG; INFO still answers.
import type { Redis } from 'ioredis';

export interface RedisFacts {
  readonly version: string;
  readonly aofEnabled: boolean;
  /** undefined when CONFIG is disabled. */
  readonly appendfsync: string | undefined;
  readonly maxmemoryPolicy: string;
  /** Bytes; 0 means no limit. */
  readonly maxmemory: number;
  readonly usedMemory: number;
  /** Bytes of the machine; 0 when Redis does not say. */
  readonly systemMemory: number;
}

/** INFO's `key:value` lines as a map. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** `redis`: one server's connection (on a cluster, the prefix's master: prefix-shard.ts), since INFO describes one server. */
export async function readRedisFacts(redis: Redis): Promise<RedisFacts> {
  const info = parseInfo(await redis.info('everything'));
  let appendfsync: string | undefined;
  try {
    const answer = await redis.config('GET', 'appendfsync');
    appendfsync = Array.isArray(answer) && typeof answer[1] === 'string' ? answer[1] : undefined;
  } catch {
    appendfsync = undefined; // CONFIG renamed or refused
  }
  const num = (key: string): number => Number(info.get(key) ?? '0') || 0;
  return {
    version: info.get('redis_version') ?? 'unknown',
    aofEnabled: info.get('aof_enabled') === '1',
    appendfsync,
    maxmemoryPolicy: info.get('maxmemory_policy') ?? 'unknown',
    maxmemory: num('maxmemory'),
    usedMemory: num('used_memory'),
    systemMemory: num('total_system_memory'),
  };
}
