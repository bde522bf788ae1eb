// Replication as REDIS_REPLICAS_ACK relies on it (docs/deploying.md, "Redis deployments and what
// they promise"): the Sentinels agree on one primary, the replicas are connected and in sync,
// min-replicas-to-write keeps a primary cut off from its replicas from taking writes, and the
// gateway waits for replicas where there are some.
import type { ReplicationFacts, SentinelAnswer } from './replication-facts.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Redis';
/** A replica that has not acknowledged for longer than this is not in sync (Redis's own min-replicas-max-lag default is 10). */
const IN_SYNC_LAG_SECONDS = 1;

export function judgeSentinels(answers: readonly SentinelAnswer[], masterName: string): CheckResult[] {
  const named = answers.flatMap((a) => ('primary' in a ? [a] : []));
  const silent = answers.flatMap((a) => ('error' in a ? [a] : []));
  const results: CheckResult[] = [];
  if (named.length === 0) {
    return [fail(AREA, 'Sentinels', `none answered for "${masterName}": ${silent.map((a) => `${a.sentinel} (${a.error})`).join('; ')}`)];
  }
  if (silent.length > 0) {
    results.push(
      warn(
        AREA,
        'Sentinels reachable',
        `${named.length} of ${answers.length} answered; ${silent.map((a) => `${a.sentinel}: ${a.error}`).join('; ')}: a failover needs a majority`,
      ),
    );
  } else {
    results.push(ok(AREA, 'Sentinels reachable', `${answers.length} of ${answers.length}`));
  }
  const primaries = [...new Set(named.map((a) => a.primary))];
  results.push(
    primaries.length === 1
      ? ok(AREA, 'Sentinels agree', `primary of "${masterName}" is ${primaries[0]}`)
      : fail(
          AREA,
          'Sentinels agree',
          `they name different primaries (${named.map((a) => `${a.sentinel} → ${a.primary}`).join(', ')}): check their configuration and the network between them`,
        ),
  );
  return results;
}

export function judgeReplication(facts: ReplicationFacts, replicasAck: number): CheckResult[] {
  if (facts.role !== 'master') {
    return [
      fail(
        AREA,
        'primary',
        `the server is a ${facts.role === 'slave' ? 'replica' : facts.role}: it refuses writes; point the gateway at the primary`,
      ),
    ];
  }
  const inSync = facts.replicas.filter((r) => r.state === 'online' && r.lagSeconds <= IN_SYNC_LAG_SECONDS);
  const behind = facts.replicas.filter((r) => !inSync.includes(r));
  const results: CheckResult[] = [];
  const listed = (rs: typeof facts.replicas) => rs.map((r) => `${r.address} ${r.state}, lag ${r.lagSeconds} s`).join('; ');
  if (facts.replicas.length === 0) {
    results.push(ok(AREA, 'replicas', 'none: a 250 rests on this one server (a process crash, not the loss of its machine)'));
  } else if (behind.length > 0) {
    results.push(warn(AREA, 'replicas', `${inSync.length} of ${facts.replicas.length} in sync; behind: ${listed(behind)}`));
  } else {
    results.push(ok(AREA, 'replicas', `${inSync.length} connected and in sync (${listed(inSync)})`));
  }
  if (replicasAck > inSync.length) {
    results.push(
      fail(
        AREA,
        'REDIS_REPLICAS_ACK',
        `${replicasAck}, but ${inSync.length} replica(s) in sync: every message would be answered 451 and every checkpoint wait; add replicas or lower REDIS_REPLICAS_ACK`,
      ),
    );
  } else if (replicasAck === 0 && facts.replicas.length > 0) {
    results.push(
      warn(
        AREA,
        'REDIS_REPLICAS_ACK',
        '0 with replicas present: a 250 rests on the primary alone, and losing its machine loses what no replica had yet; set REDIS_REPLICAS_ACK=1',
      ),
    );
  } else if (replicasAck > 0) {
    results.push(ok(AREA, 'REDIS_REPLICAS_ACK', `${replicasAck}: a 250 waits for ${replicasAck} replica(s)`));
  }
  if (replicasAck > 0) results.push(judgeMinReplicas(facts.minReplicasToWrite));
  return results;
}

function judgeMinReplicas(minReplicasToWrite: number | undefined): CheckResult {
  if (minReplicasToWrite === undefined)
    return warn(AREA, 'min-replicas-to-write', 'unknown (CONFIG GET refused): make sure it is at least 1');
  if (minReplicasToWrite >= 1) return ok(AREA, 'min-replicas-to-write', String(minReplicasToWrite));
  return warn(
    AREA,
    'min-replicas-to-write',
    "0: a primary cut off from its replicas keeps taking the queue's writes, which a failover then drops; set min-replicas-to-write 1",
  );
}
