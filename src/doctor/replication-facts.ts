// Reads what the replication checks judge: the primary's INFO replication and its
// min-replicas-to-write, and what each Sentinel names as the primary. Every wait is bounded.
import type { Redis } from 'ioredis';
import { withTimeout } from '../bounded.js';
import { openSentinelProbe } from '../redis/connections.js';
import { hostPortText, type SentinelTopology } from '../redis/topology.js';
import { parseInfo } from './redis-facts.js';

export interface ReplicaFact {
  /** host:port as the primary sees it. */
  readonly address: string;
  /** `online` once in sync; `wait_bgsave`, `send_bulk` while a full sync runs. */
  readonly state: string;
  /** Seconds since the replica last acknowledged. */
  readonly lagSeconds: number;
}

export interface ReplicationFacts {
  /** `master` or `slave`. */
  readonly role: string;
  readonly replicas: readonly ReplicaFact[];
  /** undefined when CONFIG is refused. */
  readonly minReplicasToWrite: number | undefined;
}

/** One Sentinel's answer: the primary it names, or why it gave none. */
export type SentinelAnswer =
  | { readonly sentinel: string; readonly primary: string }
  | { readonly sentinel: string; readonly error: string };

/** INFO replication's `slaveN:ip=…,port=…,state=…,offset=…,lag=…` lines. */
export function parseReplicas(info: ReadonlyMap<string, string>): ReplicaFact[] {
  const replicas: ReplicaFact[] = [];
  for (const [key, value] of info) {
    if (!/^slave\d+$/.test(key)) continue;
    const fields = new Map<string, string>();
    for (const pair of value.split(',')) {
      const at = pair.indexOf('=');
      if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
    }
    replicas.push({
      address: `${fields.get('ip') ?? '?'}:${fields.get('port') ?? '?'}`,
      state: fields.get('state') ?? 'unknown',
      lagSeconds: Number(fields.get('lag') ?? 'NaN'),
    });
  }
  return replicas;
}

export async function readReplicationFacts(redis: Redis, timeoutMs: number): Promise<ReplicationFacts> {
  const info = parseInfo(await withTimeout(redis.info('replication'), timeoutMs, 'Redis INFO replication'));
  let minReplicasToWrite: number | undefined;
  try {
    const answer = await withTimeout(redis.config('GET', 'min-replicas-to-write'), timeoutMs, 'CONFIG GET');
    minReplicasToWrite = Array.isArray(answer) && typeof answer[1] === 'string' ? Number(answer[1]) : undefined;
  } catch {
    minReplicasToWrite = undefined; // CONFIG renamed or refused
  }
  return { role: info.get('role') ?? 'unknown', replicas: parseReplicas(info), minReplicasToWrite };
}

/** Asks every Sentinel which primary it names for the master group. */
export async function askSentinels(topology: SentinelTopology, timeoutMs: number): Promise<SentinelAnswer[]> {
  return Promise.all(
    topology.sentinels.map(async (address): Promise<SentinelAnswer> => {
      const sentinel = hostPortText(address);
      const client = openSentinelProbe(topology, address, timeoutMs);
      client.on('error', () => {}); // reported as the answer
      try {
        await withTimeout(client.connect(), timeoutMs, `connecting to Sentinel ${sentinel}`);
        const answer = await withTimeout(client.call('SENTINEL', 'get-master-addr-by-name', topology.masterName), timeoutMs, 'SENTINEL');
        if (!Array.isArray(answer) || answer.length < 2) return { sentinel, error: `knows no master group "${topology.masterName}"` };
        return { sentinel, primary: `${String(answer[0])}:${String(answer[1])}` };
      } catch (err) {
        return { sentinel, error: err instanceof Error ? err.message : String(err) };
      } finally {
        client.disconnect();
      }
    }),
  );
}
