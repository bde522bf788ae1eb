// The record of messages refused in the session, under a stranger who sends refusal after
// refusal (docs/design.md §2.7): every field is cut, one client network gets at most its hourly
// share, and the whole record stays inside its byte budget, in Redis's own memory.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authRefusals } from '../../src/intake/auth-refusals.js';
import { budgetShares, ENTRY_OVERHEAD_BYTES, type SessionRefusal, SessionRefusals } from '../../src/intake/session-refusals.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const HOUR_MS = 3600 * 1000;
const MiB = 1024 * 1024;
const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);

/** An 800 KB folded subject, as the header limit (1 MiB) allows it. */
const FOLDED_SUBJECT = `${'word '.repeat(15)}\r\n `.repeat(Math.ceil((800 * 1024) / 78));
const LONG_FROM = `${'f'.repeat(10_000)}@stranger.example`;
const LONG_MESSAGE_ID = `<${'m'.repeat(10_000)}@stranger.example>`;
const LONG_ENVELOPE_FROM = `${'e'.repeat(10_000)}@stranger.example`;
const LONG_HELO = `${'h'.repeat(10_000)}.stranger.example`;

/** A refusal as an authenticated stranger makes it: every field as long as the header limit allows. */
function hugeRefusal(at: number, clientIp: string): SessionRefusal {
  return {
    at,
    reasonCode: 'SenderNotRegistered',
    reply: '550 5.7.1 SenderNotRegistered: the From address is not a registered address of any sender',
    from: LONG_FROM,
    messageId: LONG_MESSAGE_ID,
    subject: FOLDED_SUBJECT,
    envelopeFrom: LONG_ENVELOPE_FROM,
    clientIp,
    helo: LONG_HELO,
  };
}

const small = (at: number, clientIp: string, subject = 'a letter'): SessionRefusal => ({
  at,
  reasonCode: 'SenderNotRegistered',
  reply: '550 5.7.1 SenderNotRegistered',
  from: 'someone@stranger.example',
  messageId: '<1@stranger.example>',
  subject,
  envelopeFrom: 'someone@stranger.example',
  clientIp,
  helo: 'mta.stranger.example',
});

describe('the record of refused messages', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  const fresh = (budget?: { maxBytes: number; perNetworkPerHour: number }) => {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    return new SessionRefusals(redis, prefix, 24 * HOUR_MS, budget === undefined ? undefined : { name: 'refused', ...budget });
  };
  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('cuts each field a client chose to 256 bytes and the subject to 998', async () => {
    const refusals = fresh();
    await refusals.add(hugeRefusal(T0, '192.0.2.1'));
    const [kept] = await refusals.list(10, T0);
    expect(kept).toBeDefined();
    expect(Buffer.byteLength(kept?.subject ?? '')).toBe(998);
    for (const field of ['from', 'messageId', 'envelopeFrom', 'helo'] as const) expect(Buffer.byteLength(kept?.[field] ?? '')).toBe(256);
    expect(kept?.from.startsWith('ffff')).toBe(true);
  });

  it('never cuts a character in half', async () => {
    const refusals = fresh();
    await refusals.add(small(T0, '192.0.2.1', 'é'.repeat(600))); // 1,200 bytes of two-byte characters
    const [kept] = await refusals.list(10, T0);
    expect(kept?.subject).toBe('é'.repeat(499));
  });

  it('keeps at most 100 records per client /24 an hour and then only its latest; another /24, and the next hour, count apart', async () => {
    const refusals = fresh();
    const outcomes: string[] = [];
    for (let i = 0; i < 150; i += 1) outcomes.push(await refusals.add(small(T0 + i, `192.0.2.${i % 250}`)));
    for (let i = 0; i < 5; i += 1) outcomes.push(await refusals.add(small(T0 + 200 + i, '198.51.100.7')));
    expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(105);
    expect(outcomes.filter((o) => o === 'latest')).toHaveLength(50);
    const kept = await refusals.list(1000, T0 + 1000);
    expect(kept).toHaveLength(106); // 100 + the /24's latest + 5
    expect(kept.filter((r) => r.at === T0 + 149)).toHaveLength(1); // the burst's last
    expect(kept.filter((r) => r.at > T0 + 99 && r.at < T0 + 149)).toHaveLength(0);
    expect(await refusals.add(small(T0 + HOUR_MS, '192.0.2.9'))).toBe('recorded');
    expect(await refusals.list(1000, T0 + HOUR_MS)).toHaveLength(107);
  });

  it('counts an IPv6 client per /64, and an IPv4-mapped address as its IPv4 address', async () => {
    const refusals = fresh({ maxBytes: 16 * MiB, perNetworkPerHour: 2 });
    const v6 = ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:db8:1:2:0:0:0:3'];
    const v6Outcomes = await Promise.all(v6.map((ip, i) => refusals.add(small(T0 + i, ip))));
    expect(v6Outcomes.filter((o) => o === 'recorded')).toHaveLength(2);
    expect(await refusals.add(small(T0 + 10, '2001:db8:1:3::1'))).toBe('recorded'); // the next /64
    expect(await refusals.add(small(T0 + 11, '203.0.113.5'))).toBe('recorded');
    expect(await refusals.add(small(T0 + 12, '::ffff:203.0.113.6'))).toBe('recorded');
    expect(await refusals.add(small(T0 + 13, '::FFFF:203.0.113.7'))).toBe('latest');
  });

  it('keeps exactly as many records as its byte budget pays for, dropping the oldest first', async () => {
    const maxBytes = 256 * 1024;
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const refusals = new SessionRefusals(redis, prefix, 24 * HOUR_MS, { name: 'refused', maxBytes, perNetworkPerHour: 100 });
    const total = 400;
    // four /24s, a hundred each: the budget, not the per-network counts, decides what is kept;
    // every record is as long as the next (same fields, times of one width), so each costs the same
    for (let i = 0; i < total; i += 1) expect(await refusals.add(hugeRefusal(T0 + i, `10.${i % 4}.0.1`))).toBe('recorded');
    const members = await redis.zrange(`${prefix}:refused`, '0', '-1');
    const costs = new Set(members.map(recordCost));
    expect(costs.size).toBe(1);
    const [cost = 0] = costs;
    const { recordBytes } = budgetShares(maxBytes);
    const affordable = Math.floor(recordBytes / cost);
    expect(affordable).toBeLessThan(total);
    expect(members).toHaveLength(affordable);
    expect(Number(await redis.get(`${prefix}:refused:bytes`))).toBe(affordable * cost);
    expect(affordable * cost).toBeLessThanOrEqual(recordBytes);
    const kept = await refusals.list(10_000, T0 + total);
    expect(kept.map((r) => r.at)).toEqual(Array.from({ length: affordable }, (_, n) => T0 + total - 1 - n)); // the newest, none missing
  });

  it('keeps exactly the newest 10,000 records whatever the budget allows, and counts their bytes', async () => {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const refusals = new SessionRefusals(redis, prefix, 24 * HOUR_MS, {
      name: 'refused',
      maxBytes: 256 * MiB,
      perNetworkPerHour: 1_000_000,
    });
    const total = 10_050;
    const batch = 250;
    for (let at = 0; at < total; at += batch) {
      const adds = Array.from({ length: Math.min(batch, total - at) }, (_, i) => refusals.add(small(T0 + at + i, '10.9.0.1')));
      expect(new Set(await Promise.all(adds))).toEqual(new Set(['recorded']));
    }
    const kept = await refusals.list(20_000, T0 + total);
    expect(kept.length).toBe(10_000);
    expect(kept[0]?.at).toBe(T0 + total - 1); // the newest is there
    expect(kept.at(-1)?.at).toBe(T0 + total - 10_000); // the oldest 50 were dropped
    const members = await redis.zrange(`${prefix}:refused`, '0', '-1');
    const bytes = members.reduce((sum, m) => sum + recordCost(m), 0);
    expect(Number(await redis.get(`${prefix}:refused:bytes`))).toBe(bytes); // the dropped 50 no longer counted
  }, 60_000);
});

/** What a record is charged against the budget (scripts/record-refusal-5.lua): 5/4 of its bytes and the entry's overhead. */
function recordCost(member: string): number {
  return Math.ceil((Buffer.byteLength(member) * 5) / 4) + ENTRY_OVERHEAD_BYTES;
}

describe('Redis under a flood of refusals', () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    // A cap far above the budget and far below what the refusals would take unbounded (8 GB):
    // without the bounds the writes fail as Redis runs out of memory.
    server = await startRedisServer(['--appendonly', 'no', '--maxmemory', `${64 * MiB}`]);
    redis = connectTestRedis(server.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.destroy();
  });

  it('grows by less than the default budget (REFUSED_MAX_BYTES, 16 MiB) plus 10%', async () => {
    const refusals = new SessionRefusals(redis, randomPrefix(), 90 * 24 * HOUR_MS);
    await refusals.add(small(T0 - 1, '127.0.0.1')); // loads the script
    const before = await usedMemory(redis);
    const count = 10_000;
    const batch = 200;
    for (let at = 0; at < count; at += batch) {
      // every refusal from a /24 of its own, so the per-network bound does not hide the budget
      const adds = Array.from({ length: batch }, (_, i) => at + i).map((n) =>
        refusals.add(hugeRefusal(T0 + n, `10.${n >> 8}.${n & 255}.7`)),
      );
      await Promise.all(adds);
    }
    const grown = (await usedMemory(redis)) - before;
    console.log(`10,000 refusals: Redis used_memory +${(grown / MiB).toFixed(2)} MiB (budget 16 MiB)`);
    expect(grown).toBeLessThan(16 * MiB * 1.1);
    expect((await refusals.list(20_000, T0 + count)).length).toBeGreaterThan(1000); // the record still holds plenty
  });

  it('keeps the record of authentication refusals within its budget (REFUSED_MAX_BYTES) plus 10%, whatever the minutes and networks', async () => {
    const maxBytes = 1 * MiB;
    const prefix = randomPrefix();
    const refusals = authRefusals(redis, prefix, maxBytes);
    await refusals.add(failedSpf(T0 - 1, '127.0.0.1')); // loads the script
    const before = await usedMemory(redis);
    const count = 20_000;
    const batch = 200;
    for (let at = 0; at < count; at += batch) {
      // over ten minutes, every refusal from an IPv6 /64 of its own
      const adds = Array.from({ length: batch }, (_, i) => at + i).map((n) =>
        refusals.add(failedSpf(T0 + n * 30, `2001:db8:${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}::7`)),
      );
      await Promise.all(adds);
    }
    const grown = (await usedMemory(redis)) - before;
    console.log(`20,000 authentication refusals: Redis used_memory +${(grown / MiB).toFixed(2)} MiB (budget 1 MiB)`);
    expect(grown).toBeLessThan(maxBytes * 1.1);
    expect((await refusals.list(20_000, T0 + count * 30)).length).toBeGreaterThan(100); // the record still holds plenty
    // one minute's counts are kept, and go two minutes after the last
    expect(await redis.keys(`${prefix}:refused-auth:networks*`)).toHaveLength(2);
    expect(await redis.pttl(`${prefix}:refused-auth:networks`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${prefix}:refused-auth:networks`)).toBeLessThanOrEqual(2 * 60_000);
  });
});

/** A message refused for failing SPF, as anyone can send one in anyone's name. */
const failedSpf = (at: number, clientIp: string): SessionRefusal => ({
  ...small(at, clientIp),
  reasonCode: 'SPF',
  reply: '550 5.7.23 SPF check failed: the sending server is not allowed to send for stranger.example',
});

/** used_memory, settled: Redis frees some memory lazily, so read it until two reads agree. */
async function usedMemory(redis: Redis): Promise<number> {
  const read = async (): Promise<number> => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);
  let last = await read();
  for (let i = 0; i < 20; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}
