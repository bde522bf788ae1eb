// A Redis Cluster as real processes on loopback: Debian's redis-server with --cluster-enabled,
// each master durable as production runs it (redis-server.ts) in its own directory with its own
// nodes.conf, joined by `redis-cli --cluster create`. It can move one slot to another master the
// way `redis-cli --cluster reshard` does (IMPORTING / MIGRATING, MIGRATE in batches, SETSLOT NODE),
// while clients keep using it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { type RedisServer, startRedisServer } from './redis-server.js';

const run = promisify(execFile);

export interface RedisCluster {
  readonly masters: readonly RedisServer[];
  /** REDIS_CLUSTER_NODES for the gateway's roles. */
  readonly env: { readonly REDIS_CLUSTER_NODES: string };
  /** The slot Redis computes for `key` (CLUSTER KEYSLOT). */
  keySlot(key: string): Promise<number>;
  /** The port of the master that owns `slot`, as the first master's CLUSTER SLOTS says. */
  ownerPort(slot: number): Promise<number>;
  /** Moves `slot` with its keys to the master on `toPort`; `batch` keys per MIGRATE, `pauseMs` between batches. */
  moveSlot(slot: number, toPort: number, options?: { readonly batch?: number; readonly pauseMs?: number }): Promise<{ keys: number }>;
  destroy(): Promise<void>;
}

/** How long the masters may take to agree on the slots after they are assigned. */
const AGREE_TIMEOUT_MS = 30_000;

export async function startRedisCluster(masterCount = 3): Promise<RedisCluster> {
  const masters: RedisServer[] = [];
  const admins: Redis[] = [];
  try {
    for (let i = 0; i < masterCount; i++) {
      masters.push(
        await startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000']),
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...masters.map((m) => `127.0.0.1:${m.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const master of masters) {
      const admin = new Redis(master.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
      admin.on('error', () => {});
      admins.push(admin);
    }
    await waitUntil(async () => {
      for (const admin of admins) {
        const info = String(await admin.cluster('INFO'));
        if (!info.includes('cluster_state:ok') || !info.includes('cluster_slots_assigned:16384')) return false;
      }
      return true;
    }, 'every master to report cluster_state:ok');
  } catch (err) {
    for (const admin of admins) admin.disconnect();
    for (const master of masters) await master.destroy();
    throw err;
  }

  const adminOf = (port: number): Redis => {
    const found = admins[masters.findIndex((m) => m.port === port)];
    if (found === undefined) throw new Error(`no master on port ${port}`);
    return found;
  };
  const first = admins[0];
  if (first === undefined) throw new Error('a cluster needs a master');

  const ownerPort = async (slot: number): Promise<number> => {
    const ranges = (await first.cluster('SLOTS')) as unknown as [number, number, [string, number, string]][];
    const range = ranges.find(([start, end]) => start <= slot && slot <= end);
    if (range === undefined) throw new Error(`no master owns slot ${slot}`);
    return Number(range[2][1]);
  };

  return {
    masters,
    env: { REDIS_CLUSTER_NODES: masters.map((m) => `127.0.0.1:${m.port}`).join(',') },
    async keySlot(key) {
      return Number(await first.cluster('KEYSLOT', key));
    },
    ownerPort,
    async moveSlot(slot, toPort, options = {}) {
      const batch = options.batch ?? 20;
      const fromPort = await ownerPort(slot);
      if (fromPort === toPort) throw new Error(`slot ${slot} is on ${toPort} already`);
      const source = adminOf(fromPort);
      const target = adminOf(toPort);
      const sourceId = String(await source.cluster('MYID'));
      const targetId = String(await target.cluster('MYID'));
      // The order redis-cli uses: the target imports before the source migrates, so an ASK
      // redirection always finds the target ready.
      await target.cluster('SETSLOT', slot, 'IMPORTING', sourceId);
      await source.cluster('SETSLOT', slot, 'MIGRATING', targetId);
      let moved = 0;
      for (;;) {
        const keys = (await source.cluster('GETKEYSINSLOT', slot, batch)) as unknown as string[];
        if (keys.length === 0) break;
        await source.migrate('127.0.0.1', toPort, '', 0, 10_000, 'KEYS', ...keys);
        moved += keys.length;
        if (options.pauseMs !== undefined) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
      // The target first, then the source, then everyone else (as redis-cli does).
      await target.cluster('SETSLOT', slot, 'NODE', targetId);
      await source.cluster('SETSLOT', slot, 'NODE', targetId);
      for (const admin of admins) if (admin !== source && admin !== target) await admin.cluster('SETSLOT', slot, 'NODE', targetId);
      await waitUntil(async () => {
        for (const admin of admins) {
          const ranges = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number, string]][];
          const range = ranges.find(([start, end]) => start <= slot && slot <= end);
          if (range === undefined || Number(range[2][1]) !== toPort) return false;
        }
        return true;
      }, `every master to name ${toPort} as the owner of slot ${slot}`);
      return { keys: moved };
    },
    async destroy() {
      for (const admin of admins) admin.disconnect();
      for (const master of masters) await master.destroy();
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + AGREE_TIMEOUT_MS;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
