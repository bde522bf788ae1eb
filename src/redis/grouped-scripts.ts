// A client whose script calls (EVALSHA) share round trips: the calls that arrive together go in
// one pipeline (grouped-calls.ts), each answered with its own reply or error; every other command
// goes as on the client itself. The listener's intake store writes through it, so sessions that
// finish DATA together send their records (CREATE) in one round trip and their `queued`
// transitions in another. A cluster's client is used as it is: a pipeline there must stay in one
// slot, which nothing here checks.
import { Cluster } from 'ioredis';
import type { RedisClient } from './connections.js';
import { type Answers, type GroupBounds, groupedCalls } from './grouped-calls.js';

type ScriptCall = readonly [sha: string, keys: number, ...args: (string | Buffer | number)[]];

export function groupedScripts(redis: RedisClient, bounds: GroupBounds): RedisClient {
  if (redis instanceof Cluster) return redis;
  const client = redis;
  const evalshaTogether = groupedCalls<ScriptCall, unknown>(async (calls) => {
    const [only, ...more] = calls;
    if (only !== undefined && more.length === 0) {
      // alone: as the client itself sends it (a pipeline costs the listener more CPU than one command)
      const [sha, keys, ...args] = only;
      return client.evalsha(sha, keys, ...args).then(
        (value): Answers<unknown> => [{ ok: true, value }],
        (error: unknown): Answers<unknown> => [{ ok: false, error }],
      );
    }
    const pipeline = client.pipeline();
    for (const [sha, keys, ...args] of calls) pipeline.evalsha(sha, keys, ...args);
    const replies = (await pipeline.exec()) ?? [];
    return calls.map((_, i) => {
      const [error, value] = replies[i] ?? [new Error('no reply in the pipeline'), undefined];
      return error === null ? { ok: true, value } : { ok: false, error };
    }) satisfies Answers<unknown>;
  }, bounds);
  const evalsha = (sha: string, keys: number, ...args: (string | Buffer | number)[]): Promise<unknown> =>
    evalshaTogether([sha, keys, ...args]);
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'evalsha') return evalsha;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
