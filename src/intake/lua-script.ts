// A Lua script kept in its own file (`<name>-<number of keys>.lua`, its header naming every
// KEYS[n] and ARGV[n]), read once beside the module that uses it (the build copies the .lua
// files into dist/), and run by its SHA1 (EVALSHA): loaded on first use and again after a Redis
// restart (NOSCRIPT), so the hot path does not send the script's text with every message.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from '../redis/connections.js';

export type LuaArg = string | Buffer | number;

export type LuaScript = (redis: RedisClient, ...args: LuaArg[]) => Promise<unknown>;

/** The number of keys a script file takes, from its name (`transition-9.lua`: 9). */
export function keyCountOf(fileName: string): number {
  const match = /-(\d+)\.lua$/.exec(fileName);
  if (match?.[1] === undefined) throw new Error(`a Lua script's file name ends in -<number of keys>.lua: ${fileName}`);
  return Number(match[1]);
}

export function luaScript(file: URL): LuaScript {
  const path = fileURLToPath(file);
  const lua = readFileSync(path, 'utf8');
  const numberOfKeys = keyCountOf(basename(path));
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
