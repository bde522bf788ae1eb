// The doctor's pure judgements, case by case: Redis settings, the Sender API's transport, the
// directory as written, and the selectors read from intake records.
import { describe, expect, it } from 'vitest';
import { judgeApiTransport } from '../../src/doctor/api-checks.js';
import { judgeDirectory } from '../../src/doctor/directory-checks.js';
import { judgeDkimKey, judgeSpf, selectorsIn } from '../../src/doctor/dns-checks.js';
import { formatChecklist } from '../../src/doctor/printer.js';
import { judgeRedisDurability, judgeRedisHeadroom } from '../../src/doctor/redis-checks.js';
import type { RedisFacts } from '../../src/doctor/redis-facts.js';
import { exitCodeOf, fail, ok, warn } from '../../src/doctor/result.js';

const MiB = 1024 * 1024;
const durable: RedisFacts = {
  version: '7.2.4',
  aofEnabled: true,
  appendfsync: 'always',
  maxmemoryPolicy: 'noeviction',
  maxmemory: 0,
  usedMemory: 10 * MiB,
  systemMemory: 4096 * MiB,
};
const statuses = (facts: Partial<RedisFacts>): string[] =>
  judgeRedisDurability({ ...durable, ...facts }).map((r) => `${r.name} ${r.status}`);

describe('Redis durability', () => {
  it.each([
    [{}, ['appendonly ok', 'appendfsync ok', 'maxmemory-policy ok']],
    [{ aofEnabled: false }, ['appendonly fail', 'appendfsync ok', 'maxmemory-policy ok']],
    [{ appendfsync: 'everysec' }, ['appendonly ok', 'appendfsync warn', 'maxmemory-policy ok']],
    [{ appendfsync: 'no' }, ['appendonly ok', 'appendfsync fail', 'maxmemory-policy ok']],
    [{ appendfsync: undefined }, ['appendonly ok', 'appendfsync warn', 'maxmemory-policy ok']],
    [{ maxmemoryPolicy: 'allkeys-lru' }, ['appendonly ok', 'appendfsync ok', 'maxmemory-policy fail']],
  ] as const)('judges %o as %o', (facts, expected) => {
    expect(statuses(facts)).toEqual(expected);
  });

  it.each([
    [100 * MiB, 1000 * MiB, 'ok'],
    [800 * MiB, 1000 * MiB, 'warn'],
    [980 * MiB, 1000 * MiB, 'fail'],
  ] as const)('judges %d bytes used of a %d byte limit as %s', (usedMemory, maxmemory, status) => {
    expect(judgeRedisHeadroom({ ...durable, usedMemory, maxmemory }).status).toBe(status);
  });
});

describe('Sender API transport', () => {
  it.each([
    ['https://api.example.gov', 'ok'],
    ['http://127.0.0.1:8090', 'warn'],
    ['http://localhost:8090', 'warn'],
    ['http://api.example.gov', 'fail'],
    ['http://10.0.0.5:8090', 'fail'],
  ] as const)('judges %s as %s', (url, status) => {
    expect(judgeApiTransport(url).status).toBe(status);
  });
});

describe('sender directory', () => {
  it('names an address claimed by two senders (in any case) and inline secrets', () => {
    const results = judgeDirectory(
      {
        senders: [
          { companyNameEn: 'Acme', addresses: ['letters@acme.example'], apiClientSecret: 'x' },
          { companyNameEn: 'Globex', addresses: ['Letters@Acme.example'] },
        ],
      },
      new Set(['acme.example']),
    );
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['duplicate addresses', 'fail'],
      ['secrets', 'warn'],
      ['addresses with SPF', 'fail'],
    ]);
    expect(results[0]?.detail).toContain('letters@acme.example (Acme, Globex)');
    expect(results[1]?.detail).toContain('given inline for Acme');
  });
});

describe('DNS records', () => {
  it("reads signing domains and selectors from the records' DKIM checks", () => {
    const selectors = selectorsIn([
      'pass: DKIM pass for d=acme.example s=rsa2048, aligned with acme.example',
      'temporary: DKIM key for d=Globex.example s=Sel1 could not be fetched',
      'fail: no passing DKIM signature aligned with x.example (found: d=evil.example fail, unaligned)',
    ]);
    expect([...selectors].map(([d, s]) => [d, [...s]])).toEqual([
      ['acme.example', ['rsa2048']],
      ['globex.example', ['sel1']],
    ]);
  });

  it('fails two SPF records and a revoked DKIM key', () => {
    const twoSpf = judgeSpf('acme.example', ['a@acme.example'], { kind: 'answer', records: [['v=spf1 -all'], ['v=spf1 +all']] });
    expect(twoSpf).toMatchObject({ status: 'fail', detail: expect.stringContaining('2 SPF records') });
    const revoked = judgeDkimKey('acme.example', 's1', { kind: 'answer', records: [['v=DKIM1; k=rsa; p=']] });
    expect(revoked).toMatchObject({ status: 'fail', detail: expect.stringContaining('revoked') });
    expect(judgeSpf('acme.example', ['a@acme.example'], { kind: 'error', code: 'ETIMEOUT' }).status).toBe('warn');
  });
});

describe('checklist', () => {
  it('groups by area, marks each line and exits non-zero only on a failure', () => {
    const results = [
      ok('Redis', 'appendonly', 'yes'),
      warn('TLS', 'expiry', '9 days left'),
      fail('Redis', 'maxmemory-policy', 'allkeys-lru'),
    ];
    expect(formatChecklist(results)).toBe(
      'Redis\n  ✓ appendonly: yes\n  ✗ maxmemory-policy: allkeys-lru\nTLS\n  ! expiry: 9 days left\n\n1 ok, 1 warnings, 1 failed\n',
    );
    expect(exitCodeOf(results)).toBe(1);
    expect(exitCodeOf(results.slice(0, 2))).toBe(0);
  });
});
