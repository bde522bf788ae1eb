import { describe, expect, it } from 'vitest';
import { judgeShard } from '../../src/doctor/redis-checks.js';
import { shardOfSlot } from '../../src/redis/prefix-shard.js';

// CLUSTER SLOTS as Redis 7 answers it: [start, end, [host, port, id, metadata], …replicas] per range.
const SLOTS = [
  [0, 5460, ['127.0.0.1', 7000, 'a1', []], ['127.0.0.1', 7003, 'a2', []]],
  [5461, 10922, ['127.0.0.1', 7001, 'b1', []]],
  [10923, 16383, ['10.0.0.3', 7002, 'c1', []], ['10.0.0.4', 7004, 'c2', []], ['10.0.0.5', 7005, 'c3', []]],
];

describe('the shard owning a slot', () => {
  it('is the range holding the slot: its master, then its replicas', () => {
    expect(shardOfSlot(SLOTS, 0)).toEqual({
      slot: 0,
      master: { host: '127.0.0.1', port: 7000 },
      replicas: [{ host: '127.0.0.1', port: 7003 }],
    });
    expect(shardOfSlot(SLOTS, 10922)).toEqual({ slot: 10922, master: { host: '127.0.0.1', port: 7001 }, replicas: [] });
    expect(shardOfSlot(SLOTS, 16383)?.replicas).toEqual([
      { host: '10.0.0.4', port: 7004 },
      { host: '10.0.0.5', port: 7005 },
    ]);
  });

  it('is unknown for a slot no range holds, or an answer that is not CLUSTER SLOTS', () => {
    expect(shardOfSlot([[0, 100, ['127.0.0.1', 7000, 'a1']]], 101)).toBeUndefined();
    expect(shardOfSlot('ERR', 0)).toBeUndefined();
    expect(shardOfSlot([[0, 100, ['', 7000, 'a1']]], 5)).toBeUndefined();
  });
});

describe("doctor's cluster slot check", () => {
  const shard = { slot: 3340, master: { host: '10.0.0.3', port: 7002 }, replicas: [{ host: '10.0.0.4', port: 7004 }] };

  it("names the slot's master and replicas", () => {
    expect(judgeShard(shard, '{letter-intake}', 1)).toEqual({
      area: 'Redis',
      name: 'cluster slot',
      status: 'ok',
      detail: 'slot 3340 of "{letter-intake}" on master 10.0.0.3:7002, replicas 10.0.0.4:7004',
    });
  });

  it('fails when REDIS_REPLICAS_ACK waits for more replicas than the shard has', () => {
    const result = judgeShard({ ...shard, replicas: [] }, '{letter-intake}', 1);
    expect(result.status).toBe('fail');
    expect(result.detail).toContain(
      'slot 3340 of "{letter-intake}" on master 10.0.0.3:7002, no replicas: REDIS_REPLICAS_ACK=1 waits for more replicas',
    );
  });
});
