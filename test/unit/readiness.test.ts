import { describe, expect, it } from 'vitest';
import type { ApiHealthSnapshot } from '../../src/ops/api-health.js';
import { createApiHealth } from '../../src/ops/api-health.js';
import { publicReadiness } from '../../src/ops/public-readiness.js';
import { API_OUTAGE_GRACE_MS, judgeReadiness } from '../../src/ops/readiness.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const up = { ok: true };
const down = { ok: false, error: 'Redis connection is reconnecting' };
const ago = (ms: number): number => NOW - ms;

interface Case {
  readonly name: string;
  readonly redis?: { ok: boolean; error?: string };
  readonly queue?: { ok: boolean; error?: string };
  readonly api: ApiHealthSnapshot | undefined;
  readonly ready: boolean;
  readonly apiOk: boolean;
}

const cases: Case[] = [
  { name: 'everything answers, no API call yet', api: {}, ready: true, apiOk: true },
  { name: 'this process makes no API calls', api: undefined, ready: true, apiOk: true },
  { name: 'Redis is down', redis: down, api: {}, ready: false, apiOk: true },
  {
    name: 'the queue does not answer',
    queue: { ok: false, error: 'queue intake: no answer within 1000 ms' },
    api: {},
    ready: false,
    apiOk: true,
  },
  { name: 'the API answered last', api: { lastOkAt: ago(1000) }, ready: true, apiOk: true },
  {
    name: 'the API recovered after a failure',
    api: { lastOkAt: ago(1000), lastFailureAt: ago(5000), lastError: 'HTTP 503' },
    ready: true,
    apiOk: true,
  },
  {
    name: 'the API failed just now',
    api: { lastOkAt: ago(120_000), lastFailureAt: ago(500), failingSince: ago(500), lastError: 'no answer' },
    ready: true,
    apiOk: true,
  },
  {
    name: 'the API has failed for exactly the grace',
    api: { lastFailureAt: ago(1000), failingSince: ago(API_OUTAGE_GRACE_MS) },
    ready: true,
    apiOk: true,
  },
  {
    name: 'the API has failed for longer than the grace',
    api: { lastOkAt: ago(300_000), lastFailureAt: ago(1000), failingSince: ago(API_OUTAGE_GRACE_MS + 1) },
    ready: false,
    apiOk: false,
  },
  {
    name: 'the API never answered, failing since long ago',
    api: { lastFailureAt: ago(90_000), lastError: 'no answer' },
    ready: false,
    apiOk: false,
  },
];

describe('judgeReadiness', () => {
  it.each(cases)('$name → ready $ready', (c) => {
    const verdict = judgeReadiness({ redis: c.redis ?? up, queue: c.queue ?? up, api: c.api, now: NOW });
    expect(verdict.ready).toBe(c.ready);
    expect(verdict.checks.senderApi.ok).toBe(c.apiOk);
  });

  it('is not ready while the role is still starting, and says so', () => {
    const verdict = judgeReadiness({ redis: up, queue: up, api: {}, started: false, now: NOW });
    expect(verdict.ready).toBe(false);
    expect(verdict.checks.role).toEqual({ ok: false, error: 'still starting' });
    expect(judgeReadiness({ redis: up, queue: up, api: {}, started: true, now: NOW }).ready).toBe(true);
  });

  it('with listener processes, is ready only when every one is; the public body names each, the reason stays inside', () => {
    const starting = { ok: false, error: 'exited; starting again' };
    const verdict = judgeReadiness({ redis: up, queue: up, api: {}, listeners: { '1': up, '2': starting }, now: NOW });
    expect(verdict.ready).toBe(false);
    expect(verdict.listeners).toEqual({ '1': up, '2': starting });
    expect(publicReadiness(verdict).listeners).toEqual({ '1': 'ok', '2': 'failing' });
    expect(judgeReadiness({ redis: up, queue: up, api: {}, listeners: { '1': up, '2': up }, now: NOW }).ready).toBe(true);
  });

  it('has no listeners entry when the listener runs in the process itself', () => {
    const verdict = judgeReadiness({ redis: up, queue: up, api: {}, now: NOW });
    expect(verdict.listeners).toBeUndefined();
    expect(publicReadiness(verdict)).not.toHaveProperty('listeners');
  });

  it('passes the failing dependency and its error through to the body', () => {
    const verdict = judgeReadiness({ redis: down, queue: up, api: undefined, now: NOW });
    expect(verdict.checks.redis).toEqual(down);
  });

  it('reports the API times as ISO strings and says how long it has been failing', () => {
    const verdict = judgeReadiness({
      redis: up,
      queue: up,
      now: NOW,
      api: { lastOkAt: ago(200_000), lastFailureAt: ago(1000), failingSince: ago(90_000), lastError: 'ServiceUnavailable (HTTP 503)' },
    });
    expect(verdict.checks.senderApi).toMatchObject({
      ok: false,
      lastOkAt: new Date(ago(200_000)).toISOString(),
      failingSince: new Date(ago(90_000)).toISOString(),
      lastError: 'ServiceUnavailable (HTTP 503)',
    });
    expect(verdict.checks.senderApi.note).toContain('failing for 90 s');
  });
});

describe('createApiHealth', () => {
  it('remembers when the failing began and forgets it on a healthy answer', () => {
    const health = createApiHealth();
    health.record(undefined, undefined, 1000);
    health.record(503, 'ServiceUnavailable', 2000);
    expect(health.snapshot()).toEqual({ lastFailureAt: 2000, failingSince: 1000, lastError: 'ServiceUnavailable (HTTP 503)' });
    health.record(400, 'InvalidData', 3000);
    expect(health.snapshot()).toEqual({ lastOkAt: 3000, lastFailureAt: 2000, lastError: 'ServiceUnavailable (HTTP 503)' });
  });

  it.each([
    [undefined, undefined, 'no answer'],
    [undefined, 'Timeout', 'Timeout'],
    [500, undefined, 'HTTP 500'],
    [500, 'UnexpectedError', 'UnexpectedError (HTTP 500)'],
  ] as const)('describes status %s with errorCode %s as "%s"', (status, errorCode, text) => {
    const health = createApiHealth();
    health.record(status, errorCode, 1);
    expect(health.snapshot().lastError).toBe(text);
  });
});

describe('the health of each Sender API', () => {
  const PROD = 'https://api.example';
  const STAGING = 'https://staging.api.example';
  const failing = { lastFailureAt: ago(1000), failingSince: ago(API_OUTAGE_GRACE_MS + 5000), lastError: 'HTTP 503' };

  it('is kept per base URL', () => {
    const health = createApiHealth();
    health.record(200, undefined, ago(3000), PROD);
    health.record(503, undefined, ago(2000), STAGING);
    expect(health.byApi().get(PROD)).toEqual({ lastOkAt: ago(3000) });
    expect(health.byApi().get(STAGING)).toMatchObject({ failingSince: ago(2000), lastError: 'HTTP 503' });
  });

  it('keeps the process ready while one API is down and another answers, naming the one that is down', () => {
    const apis = new Map<string, ApiHealthSnapshot>([
      [PROD, { lastOkAt: ago(1000) }],
      [STAGING, failing],
    ]);
    const verdict = judgeReadiness({ redis: up, queue: up, api: failing, apis, now: NOW });
    expect(verdict.ready).toBe(true);
    expect(verdict.checks.senderApi.apis?.[STAGING]?.ok).toBe(false);
    expect(verdict.checks.senderApi.apis?.[PROD]?.ok).toBe(true);
    expect(verdict.checks.senderApi.note).toBe(`failing with no healthy answer: ${STAGING}`);
  });

  it('makes the process unready when every API is down', () => {
    const apis = new Map<string, ApiHealthSnapshot>([
      [PROD, failing],
      [STAGING, failing],
    ]);
    expect(judgeReadiness({ redis: up, queue: up, api: failing, apis, now: NOW }).ready).toBe(false);
  });
});
