// The replication checks of doctor, from facts as INFO replication and the Sentinels give them.
import { describe, expect, it } from 'vitest';
import { parseInfo } from '../../src/doctor/redis-facts.js';
import { judgeReplication, judgeSentinels } from '../../src/doctor/replication-checks.js';
import { parseReplicas, type ReplicationFacts } from '../../src/doctor/replication-facts.js';

const INFO = [
  '# Replication',
  'role:master',
  'connected_slaves:2',
  'slave0:ip=10.0.0.2,port=6379,state=online,offset=9120,lag=0',
  'slave1:ip=10.0.0.3,port=6379,state=wait_bgsave,offset=0,lag=4',
  'master_repl_offset:9120',
].join('\r\n');

const online = (address: string) => ({ address, state: 'online', lagSeconds: 0 });
const facts = (replicas: ReplicationFacts['replicas'], minReplicasToWrite: number | undefined = 1): ReplicationFacts => ({
  role: 'master',
  replicas,
  minReplicasToWrite,
});
const verdicts = (results: ReturnType<typeof judgeReplication>) => results.map((r) => [r.name, r.status]);

describe('the replicas INFO lists', () => {
  it('are read with their state and lag', () => {
    expect(parseReplicas(parseInfo(INFO))).toEqual([
      { address: '10.0.0.2:6379', state: 'online', lagSeconds: 0 },
      { address: '10.0.0.3:6379', state: 'wait_bgsave', lagSeconds: 4 },
    ]);
  });
});

describe('the replication checks', () => {
  it.each([
    [
      'two in sync, one wanted',
      facts([online('a:1'), online('b:1')]),
      1,
      [
        ['replicas', 'ok'],
        ['REDIS_REPLICAS_ACK', 'ok'],
        ['min-replicas-to-write', 'ok'],
      ],
    ],
    [
      'replicas present, none wanted',
      facts([online('a:1')]),
      0,
      [
        ['replicas', 'ok'],
        ['REDIS_REPLICAS_ACK', 'warn'],
      ],
    ],
    ['no replica, none wanted', facts([]), 0, [['replicas', 'ok']]],
    [
      'one wanted, none in sync',
      facts([{ address: 'a:1', state: 'wait_bgsave', lagSeconds: 0 }]),
      1,
      [
        ['replicas', 'warn'],
        ['REDIS_REPLICAS_ACK', 'fail'],
        ['min-replicas-to-write', 'ok'],
      ],
    ],
    [
      'one wanted, one lagging 5 s',
      facts([{ address: 'a:1', state: 'online', lagSeconds: 5 }, online('b:1')]),
      1,
      [
        ['replicas', 'warn'],
        ['REDIS_REPLICAS_ACK', 'ok'],
        ['min-replicas-to-write', 'ok'],
      ],
    ],
    [
      'two wanted, one in sync',
      facts([online('a:1')]),
      2,
      [
        ['replicas', 'ok'],
        ['REDIS_REPLICAS_ACK', 'fail'],
        ['min-replicas-to-write', 'ok'],
      ],
    ],
    [
      'one wanted, min-replicas-to-write 0',
      facts([online('a:1')], 0),
      1,
      [
        ['replicas', 'ok'],
        ['REDIS_REPLICAS_ACK', 'ok'],
        ['min-replicas-to-write', 'warn'],
      ],
    ],
    [
      'one wanted, CONFIG refused',
      { ...facts([online('a:1')]), minReplicasToWrite: undefined },
      1,
      [
        ['replicas', 'ok'],
        ['REDIS_REPLICAS_ACK', 'ok'],
        ['min-replicas-to-write', 'warn'],
      ],
    ],
  ] as const)('%s', (_case, given, wanted, expected) => {
    expect(verdicts(judgeReplication(given, wanted))).toEqual(expected);
  });

  it('fails a replica taken for the primary', () => {
    const [result] = judgeReplication({ role: 'slave', replicas: [], minReplicasToWrite: 1 }, 1);
    expect(result).toMatchObject({ name: 'primary', status: 'fail' });
    expect(result?.detail).toContain('is a replica');
  });
});

describe('the Sentinel checks', () => {
  it('pass when every Sentinel answers and all name one primary', () => {
    const answers = ['s1:26379', 's2:26379', 's3:26379'].map((sentinel) => ({ sentinel, primary: '10.0.0.1:6379' }));
    expect(judgeSentinels(answers, 'intake').map((r) => [r.name, r.status, r.detail])).toEqual([
      ['Sentinels reachable', 'ok', '3 of 3'],
      ['Sentinels agree', 'ok', 'primary of "intake" is 10.0.0.1:6379'],
    ]);
  });

  it('warn when one does not answer, and fail when they name different primaries', () => {
    const results = judgeSentinels(
      [
        { sentinel: 's1:26379', primary: '10.0.0.1:6379' },
        { sentinel: 's2:26379', primary: '10.0.0.2:6379' },
        { sentinel: 's3:26379', error: 'connect ECONNREFUSED' },
      ],
      'intake',
    );
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['Sentinels reachable', 'warn'],
      ['Sentinels agree', 'fail'],
    ]);
    expect(results[1]?.detail).toContain('s1:26379 → 10.0.0.1:6379, s2:26379 → 10.0.0.2:6379');
  });

  it('fail when none answers', () => {
    expect(judgeSentinels([{ sentinel: 's1:26379', error: 'connect ECONNREFUSED' }], 'intake')).toMatchObject([
      { name: 'Sentinels', status: 'fail' },
    ]);
  });
});
