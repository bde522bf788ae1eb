// A Lua script run by its SHA1 (EVALSHA), loaded on first use and again after a Redis restart
// (NOSCRIPT): the hot path does not send the script's text with every message.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type LuaArg = string | Buffer | number;

export function luaScript(lua: string, numberOfKeys: number): (redis: Redis, ...args: LuaArg[]) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis, ...args) => {
    try {
      return await redis.evalsha(sha, numberOfKeys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua, numberOfKeys, ...args);
    }
  };
}
