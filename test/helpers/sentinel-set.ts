// A primary, its replicas and a quorum of Sentinels, as real processes on loopback (Debian's
// redis-server and redis-sentinel), for the tests of failover. Each server is durable as
// production runs it (redis-server.ts); the Sentinels rewrite their own files, kept in a
// temporary directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/runtime/redis.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

export interface SentinelSetOptions {
  readonly replicas: number;
  readonly sentinels: number;
  /** Sentinel's down-after-milliseconds and failover-timeout. */
  readonly downAfterMs: number;
  readonly failoverTimeoutMs: number;
  /** Further redis-server arguments for every data node (e.g. min-replicas-to-write). */
  readonly serverArgs?: readonly string[];
}

export interface SentinelSet {
  readonly masterName: string;
  readonly primary: RedisServer;
  readonly replicas: readonly RedisServer[];
  readonly sentinelPorts: readonly number[];
  /** REDIS_SENTINELS and REDIS_SENTINEL_MASTER for the gateway's roles. */
  readonly env: { readonly REDIS_SENTINELS: string; readonly REDIS_SENTINEL_MASTER: string };
  /** The port of the primary the first answering Sentinel names. */
  primaryPort(): Promise<number>;
  /** Resolves once the Sentinels name a primary other than `port` and it answers as a primary. */
  waitForNewPrimary(port: number, timeoutMs: number): Promise<number>;
  destroy(): Promise<void>;
}

export const MASTER_NAME = 'intake';

export interface ReplicatedRedis {
  readonly primary: RedisServer;
  readonly replicas: readonly RedisServer[];
  destroy(): Promise<void>;
}

/** A primary and `count` replicas of it, each in sync when this resolves. */
export async function startReplicatedRedis(count: number, serverArgs: readonly string[] = []): Promise<ReplicatedRedis> {
  // A full sync starts at once (Redis 7 waits 5 s by default for more replicas to join it).
  const extra = ['--repl-diskless-sync-delay', '0', ...serverArgs];
  const primary = await startRedisServer(extra);
  const replicas: RedisServer[] = [];
  for (let i = 0; i < count; i++) {
    replicas.push(await startRedisServer(['--replicaof', '127.0.0.1', String(primary.port), ...extra]));
  }
  for (const replica of replicas) {
    await waitFor(async () => (await infoField(replica.port, 'replication', 'master_link_status')) === 'up', 20_000, 'replicas in sync');
  }
  return {
    primary,
    replicas,
    async destroy() {
      for (const server of [primary, ...replicas]) {
        server.resume();
        await server.destroy();
      }
    },
  };
}

export async function startSentinelSet(options: SentinelSetOptions): Promise<SentinelSet> {
  const { primary, replicas, destroy: destroyServers } = await startReplicatedRedis(options.replicas, options.serverArgs);
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-sentinel-'));
  const quorum = Math.floor(options.sentinels / 2) + 1;
  const sentinels: ChildProcess[] = [];
  const sentinelPorts: number[] = [];
  for (let i = 0; i < options.sentinels; i++) {
    const port = await freePort();
    const file = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} ${quorum}`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${options.downAfterMs}`,
        `sentinel failover-timeout ${MASTER_NAME} ${options.failoverTimeoutMs}`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(spawn('redis-sentinel', [file], { stdio: 'ignore' }));
    sentinelPorts.push(port);
  }
  // A failover needs a majority that knows the replicas and each other (hello messages every 2 s).
  await waitFor(
    async () => {
      for (const port of sentinelPorts) {
        const master = await sentinelMaster(port);
        if (master === undefined) return false;
        if (master['num-slaves'] !== String(options.replicas) || master['num-other-sentinels'] !== String(options.sentinels - 1))
          return false;
      }
      return true;
    },
    30_000,
    'Sentinels that know the replicas and each other',
  );

  const primaryPort = async (): Promise<number> => {
    for (const port of sentinelPorts) {
      const address = await sentinelAsk(port, ['get-master-addr-by-name', MASTER_NAME]);
      if (Array.isArray(address) && typeof address[1] === 'string') return Number(address[1]);
    }
    throw new Error('no Sentinel names a primary');
  };

  return {
    masterName: MASTER_NAME,
    primary,
    replicas,
    sentinelPorts,
    env: { REDIS_SENTINELS: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','), REDIS_SENTINEL_MASTER: MASTER_NAME },
    primaryPort,
    async waitForNewPrimary(old, timeoutMs) {
      let found = old;
      await waitFor(
        async () => {
          found = await primaryPort().catch(() => old);
          return found !== old && (await infoField(found, 'replication', 'role')) === 'master';
        },
        timeoutMs,
        `a primary other than ${old}`,
      );
      return found;
    },
    async destroy() {
      await Promise.all(
        sentinels.map(
          (child) =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGKILL');
            }),
        ),
      );
      await destroyServers();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One field of INFO <section> from the server on `port`; undefined when it does not answer. */
export async function infoField(port: number, section: string, field: string): Promise<string | undefined> {
  const redis = oneShot(port);
  try {
    const text = await redis.info(section);
    return new RegExp(`^${field}:(.*)$`, 'm').exec(text)?.[1]?.trim();
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

async function sentinelMaster(port: number): Promise<Record<string, string> | undefined> {
  const answer = await sentinelAsk(port, ['master', MASTER_NAME]);
  if (!Array.isArray(answer)) return undefined;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < answer.length; i += 2) fields[String(answer[i])] = String(answer[i + 1]);
  return fields;
}

async function sentinelAsk(port: number, args: readonly string[]): Promise<unknown> {
  const redis = oneShot(port);
  try {
    return await redis.call('SENTINEL', ...args);
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

function oneShot(port: number): Redis {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
    commandTimeout: 1000,
    protocol: 2,
  });
  redis.on('error', () => {});
  return redis;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
