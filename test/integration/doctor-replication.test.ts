// doctor against a primary, a replica and two Sentinels, reached through REDIS_SENTINELS: it
// reports the Sentinels agreeing, the replica in sync, and what REDIS_REPLICAS_ACK and
// min-replicas-to-write mean for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';
import { loadConfig } from '../../src/config.js';
import type { CheckResult } from '../../src/doctor/result.js';
import { runDoctor } from '../../src/doctor/run-doctor.js';
import { createLogger } from '../../src/log.js';
import { FIXTURE_DIR } from '../helpers/gateway.js';
import { type SentinelSet, startSentinelSet } from '../helpers/sentinel-set.js';

let set: SentinelSet;

beforeAll(async () => {
  set = await startSentinelSet({ replicas: 1, sentinels: 2, downAfterMs: 2000, failoverTimeoutMs: 10_000 });
});
afterAll(async () => {
  await set.destroy();
});

async function redisChecks(env: Record<string, string>): Promise<CheckResult[]> {
  const results = await runDoctor({
    config: loadConfig(env),
    env,
    clock: Date.now,
    resolver: loadZoneResolver(`${FIXTURE_DIR}/zone.json`),
    logger: createLogger({ level: 'silent' }),
  });
  return results.filter((r) => r.area === 'Redis');
}

const byName = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.name, r.status]));

describe('doctor on a Sentinel deployment', () => {
  it('finds the Sentinels agreeing and the replica in sync; REDIS_REPLICAS_ACK=0 with a replica is a warning', async () => {
    const results = await redisChecks({ ...set.env });
    expect(byName(results)).toMatchObject({
      reachable: 'ok',
      'Sentinels reachable': 'ok',
      'Sentinels agree': 'ok',
      replicas: 'ok',
      REDIS_REPLICAS_ACK: 'warn',
    });
    expect(results.find((r) => r.name === 'Sentinels agree')?.detail).toBe(`primary of "intake" is 127.0.0.1:${set.primary.port}`);
  });

  it('fails REDIS_REPLICAS_ACK=2 with one replica, and warns of min-replicas-to-write 0', async () => {
    const results = await redisChecks({ ...set.env, REDIS_REPLICAS_ACK: '2' });
    expect(byName(results)).toMatchObject({ REDIS_REPLICAS_ACK: 'fail', 'min-replicas-to-write': 'warn' });
  });

  it('reports a Sentinel that does not answer', async () => {
    const results = await redisChecks({ ...set.env, REDIS_SENTINELS: `${set.env.REDIS_SENTINELS},127.0.0.1:1` });
    expect(byName(results)).toMatchObject({ 'Sentinels reachable': 'warn', 'Sentinels agree': 'ok' });
  });
});
