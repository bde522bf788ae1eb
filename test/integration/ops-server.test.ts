// The ops HTTP server over real HTTP (port 0) and real Redis (a random prefix per test):
// probes, metrics, the admin login, the intake pages and replay.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import type { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../../src/bounded.js';
import { createIntakeQueue, type IntakeJobData } from '../../src/intake/queue.js';
import type { IntakeRecord, IntakeUpdate } from '../../src/intake/record.js';
import { replayIntake } from '../../src/intake/replay.js';
import { createSelfTestQueue, type SelfTestJobData } from '../../src/intake/self-test-queue.js';
import { type SessionRefusal, SessionRefusals } from '../../src/intake/session-refusals.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { startOpsServer } from '../../src/ops/server.js';
import { openRedis, type RedisClient } from '../../src/redis/connections.js';
import type { RedisTopology } from '../../src/redis/topology.js';
import { freePort, waitForRedis } from '../../src/runtime/redis.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const USER = 'admin';
const PASSWORD = 'correct horse battery';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = { authorization: basic(USER, PASSWORD) };
const HTML = { ...AUTH, accept: 'text/html,application/xhtml+xml' };

interface Harness {
  readonly url: string;
  readonly store: IntakeStore;
  readonly queue: Queue<IntakeJobData>;
  readonly selfTestQueue: Queue<SelfTestJobData>;
  readonly metrics: Metrics;
  readonly logs: Record<string, unknown>[];
  readonly refusals: SessionRefusals;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHarness(options: { password?: string; redis?: RedisClient } = {}): Promise<Harness> {
  const prefix = randomPrefix();
  const redis = options.redis ?? connectTestRedis();
  const queue = createIntakeQueue(redis, prefix);
  const selfTestQueue = createSelfTestQueue(redis, prefix);
  const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  const metrics = createMetrics({ queue });
  const refusals = new SessionRefusals(redis, prefix, 60_000);
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'debug', destination }),
    registry: metrics.registry,
    redis,
    queue,
    selfTestQueue,
    store,
    refusals,
    apiHealth: metrics.apiHealth,
    replay: (id) => replayIntake({ store, queue, clock: Date.now, attempts: 3 }, id),
    dashboard: { user: USER, password: options.password },
  });
  cleanups.push(async () => {
    await server.close();
    if (options.redis !== undefined) return; // a Redis the test stopped: nothing to clean
    await queue.close();
    await selfTestQueue.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  return { url: server.url, store, queue, selfTestQueue, metrics, logs, refusals };
}

/** A record that went received → queued → processing → `state`, with the given fields. */
async function intakeIn(
  store: IntakeStore,
  state: 'submitted' | 'rejected' | 'failed',
  subject: string,
  update: IntakeUpdate,
): Promise<string> {
  const intakeId = `in${randomBytes(12).toString('hex')}`;
  const t0 = Date.now();
  await store.create(
    {
      intakeId,
      receivedAt: t0,
      envelopeFrom: 'letters@acme.example',
      envelopeTo: ['letters@intake.example'],
      clientIp: '127.0.0.1',
      helo: 'mx.acme.example',
      from: 'letters@acme.example',
      subject,
      messageId: `<${intakeId}@acme.example>`,
      sizeBytes: 2048,
      auth: { spf: 'pass', dkim: 'pass' },
    },
    { headers: '', body: UNREAD_BLOB },
    t0,
  );
  expect(await store.transition(intakeId, ['received'], 'queued', t0 + 1)).toEqual({ ok: true });
  expect(await store.transition(intakeId, ['queued'], 'processing', t0 + 2)).toEqual({ ok: true });
  expect(await store.transition(intakeId, ['processing'], state, t0 + 3, update)).toEqual({ ok: true });
  return intakeId;
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
/** Every table of a page as rows of cell texts (tags stripped, entities decoded). */
function tables(html: string): string[][][] {
  return [...html.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].map((body) =>
    [...(body[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
      [...(row[1] ?? '').matchAll(/<t[dh]>([\s\S]*?)<\/t[dh]>/g)].map((cell) =>
        (cell[1] ?? '')
          .replace(/<[^>]*>/g, '')
          .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e)
          .trim(),
      ),
    ),
  );
}

/** The rows of the page's table of class `name`. */
function tableRows(html: string, name: string): string[][] {
  const at = html.indexOf(`<table class="${name}">`);
  return at < 0 ? [] : (tables(html.slice(at))[0] ?? []);
}

const metricLine = (text: string, series: string): string | undefined => text.split('\n').find((line) => line.startsWith(`${series} `));

describe('probes', () => {
  it('answers /healthz while the process lives', async () => {
    const { url } = await startHarness();
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('is ready when Redis and the queue answer', async () => {
    const { url } = await startHarness();
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ready: true,
      checks: { redis: 'ok', queue: 'ok', senderApi: 'ok' },
    });
  });

  it('answers /readyz with 503 naming Redis, within its bound, once Redis has stopped', async () => {
    const port = await freePort();
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const topology: RedisTopology = { kind: 'standalone', url: `redis://127.0.0.1:${port}`, tls: undefined };
    const redis = openRedis(topology, { kind: 'worker' });
    redis.on('error', () => {}); // refused reconnections, expected once the server is gone
    cleanups.push(async () => redis.disconnect());
    await waitForRedis(redis, topology, 5000);
    const { url, queue } = await startHarness({ redis });
    queue.on('error', () => {});
    cleanups.push(async () => withTimeout(queue.close(), 1000, 'queue close').catch(() => undefined));
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const closed = once(redis, 'close');
    child.kill('SIGKILL');
    await closed;
    const started = performance.now();
    const response = await fetch(`${url}/readyz`);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(response.status).toBe(503);
    const body: unknown = await response.json();
    expect(body).toMatchObject({ ready: false, checks: { redis: 'failing', queue: 'failing' } });
  });
});

describe('metrics', () => {
  it('serves the Prometheus text format, counting what the observer reports', async () => {
    const { url, metrics, queue } = await startHarness();
    const series = 'letter_intake_smtp_replies_total{code="250",command="DATA"}';
    const before = await (await fetch(`${url}/metrics`)).text();
    expect(metricLine(before, series)).toBeUndefined();

    metrics.observer.smtpReply(250, 'DATA');
    await queue.add('intake', { intakeId: 'in-metrics', from: 'letters@acme.example', sizeBytes: 1 });
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(metricLine(text, series)).toBe(`${series} 1`);
    expect(metricLine(text, 'letter_intake_queue_jobs{state="waiting"}')).toBe('letter_intake_queue_jobs{state="waiting"} 1');
    expect(metricLine(text, 'letter_intake_operator_alerts_total{errorCode="InvalidCredentials"}')).toMatch(/ 0$/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('admin login', () => {
  const adminPaths = ['/admin/queues', '/admin/intakes', '/admin/intakes/in-unknown'];

  it.each(adminPaths)('refuses %s without credentials and with wrong ones', async (path) => {
    const { url } = await startHarness({ password: PASSWORD });
    const anonymous = await fetch(`${url}${path}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await fetch(`${url}${path}`, { headers: { authorization: basic(USER, 'wrong') } })).status).toBe(401);
    expect((await fetch(`${url}${path}`, { headers: { authorization: basic('root', PASSWORD) } })).status).toBe(401);
  });

  it('lets the right credentials into the queue dashboard, its API and the intake pages', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const id = await intakeIn(store, 'failed', 'Statement', { errorCode: 'InvalidCredentials' });
    const dashboard = await fetch(`${url}/admin/queues`, { headers: AUTH });
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('content-type')).toContain('text/html');
    const api = await fetch(`${url}/admin/queues/api/queues`, { headers: AUTH });
    expect(api.status).toBe(200);
    expect(await api.text()).toContain('"intake"');
    expect((await fetch(`${url}/admin/intakes`, { headers: AUTH })).status).toBe(200);
    const detail = await fetch(`${url}/admin/intakes/${id}`, { headers: AUTH });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ intake: { intakeId: id, state: 'failed', errorCode: 'InvalidCredentials' } });
  });

  it('serves a queue dashboard that loads nothing from elsewhere and links each job to its intake page', async () => {
    const { url, queue } = await startHarness({ password: PASSWORD });
    await queue.add(
      'intake',
      { intakeId: 'inlinked00000000000000001', from: 'letters@acme.example', sizeBytes: 1 },
      { jobId: 'inlinked00000000000000001' },
    );
    const html = await (await fetch(`${url}/admin/queues`, { headers: AUTH })).text();
    expect(html).toContain('<div id="root">');
    expect(html.match(/(?:href|src)="https?:\/\/[^"]*"/g) ?? []).toEqual([]);
    const jobs = await (await fetch(`${url}/admin/queues/api/queues?activeQueue=intake&status=waiting&page=1`, { headers: AUTH })).json();
    const intakeQueue = (jobs as { queues: { name: string; jobs: { id: string; externalUrl?: unknown }[] }[] }).queues.find(
      (q) => q.name === 'intake',
    );
    expect(intakeQueue?.jobs.map((j) => [j.id, j.externalUrl])).toEqual([
      ['inlinked00000000000000001', { href: '/admin/intakes/inlinked00000000000000001', displayText: 'intake page' }],
    ]);
  });

  it('lists the selftest queue beside intake, each self-test job linked to its report', async () => {
    const { url, selfTestQueue } = await startHarness({ password: PASSWORD });
    await selfTestQueue.add('selftest', { id: 'st0000000000000000000000a1', blobKey: 'blob' }, { jobId: 'st0000000000000000000000a1' });
    const api = await fetch(`${url}/admin/queues/api/queues?activeQueue=selftest&status=waiting&page=1`, { headers: AUTH });
    const { queues } = (await api.json()) as { queues: { name: string; jobs: { id: string; externalUrl?: unknown }[] }[] };
    expect(queues.map((q) => q.name).sort()).toEqual(['intake', 'selftest']);
    expect(queues.find((q) => q.name === 'selftest')?.jobs.map((j) => [j.id, j.externalUrl])).toEqual([
      ['st0000000000000000000000a1', { href: '/admin/self-tests/st0000000000000000000000a1', displayText: 'self-test report' }],
    ]);
  });

  it('serves no admin routes at all without a password, and says why', async () => {
    const { url, logs } = await startHarness();
    for (const path of ['/admin/queues', '/admin/intakes']) {
      expect((await fetch(`${url}${path}`, { headers: AUTH })).status).toBe(404);
    }
    const warning = logs.find((line) => line.event === 'ops.admin_disabled');
    expect(warning?.level).toBe(40);
    expect(String(warning?.msg)).toContain('DASHBOARD_PASSWORD');
  });
});

describe('intake pages', () => {
  it('lists submitted and rejected intakes as table rows with their letter id or reason', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const submitted = await intakeIn(store, 'submitted', 'Annual statement', { letterId: 'letter-42', senderId: 'acme' });
    const rejected = await intakeIn(store, 'rejected', '<script>alert(1)</script>', {
      reasonCode: 'NoPdfAttachment',
      reason: 'the message carries no PDF',
    });
    const response = await fetch(`${url}/admin/intakes?state=submitted,rejected`, { headers: HTML });
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).not.toContain('<script>');
    const rows = tableRows(html, 'intakes');
    expect(rows.find((r) => r[0] === submitted)).toEqual([
      submitted,
      'submitted',
      expect.any(String),
      'letters@acme.example',
      'Annual statement',
      'letter-42',
      '',
    ]);
    expect(rows.find((r) => r[0] === rejected)).toEqual([
      rejected,
      'rejected',
      expect.any(String),
      'letters@acme.example',
      '<script>alert(1)</script>',
      'NoPdfAttachment: the message carries no PDF',
      '',
    ]);
  });

  it('shows the latest of every state by default, with a replay button for failed ones only', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const failed = await intakeIn(store, 'failed', 'Bill', { errorCode: 'IpAddressUnauthorized' });
    const rejected = await intakeIn(store, 'rejected', 'Bill', { reasonCode: 'MissingSubject' });
    const submitted = await intakeIn(store, 'submitted', 'Bill', { letterId: 'letter-1' });
    const rows = tableRows(await (await fetch(`${url}/admin/intakes`, { headers: HTML })).text(), 'intakes');
    expect(rows.map((r) => [r[0], r[1], r[6]])).toEqual(
      expect.arrayContaining([
        [failed, 'failed', 'replay'],
        [rejected, 'rejected', ''],
        [submitted, 'submitted', ''],
      ]),
    );
    expect(rows).toHaveLength(3);
    const json = await (await fetch(`${url}/admin/intakes?format=json`, { headers: HTML })).json();
    expect(json).toMatchObject({ states: ['received', 'queued', 'processing', 'submitted', 'rejected', 'failed', 'simulated'] });
  });

  it('shows one intake with its timeline', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const id = await intakeIn(store, 'submitted', 'Annual statement', { letterId: 'letter-7' });
    const [fields, timeline] = tables(await (await fetch(`${url}/admin/intakes/${id}`, { headers: HTML })).text());
    expect(fields).toEqual(
      expect.arrayContaining([
        ['intake', id],
        ['state', 'submitted'],
        ['letter id', 'letter-7'],
      ]),
    );
    expect(timeline?.map((r) => r[0])).toEqual(['received', 'queued', 'processing', 'submitted']);
  });
});

describe('messages refused in the SMTP session', () => {
  const refusal = (over: Partial<SessionRefusal>): SessionRefusal => ({
    at: Date.now(),
    reasonCode: 'NoPdfAttachment',
    reply: '550 5.6.0 NoPdfAttachment: the message carries no PDF attachment; attach it',
    from: 'letters@acme.example',
    messageId: '<m1@acme.example>',
    subject: 'Bill',
    envelopeFrom: 'bounce@acme.example',
    clientIp: '192.0.2.7',
    helo: 'mta.acme.example',
    ...over,
  });

  it('lists them newest first with reason, From, Message-ID and client, escaped', async () => {
    const { url, refusals } = await startHarness({ password: PASSWORD });
    const now = Date.now();
    await refusals.add(refusal({ at: now - 2000, reasonCode: 'NotAPdf', messageId: '<older@acme.example>' }));
    await refusals.add(refusal({ at: now - 1000, subject: '<script>alert(1)</script>' }));
    const html = await (await fetch(`${url}/admin/intakes/refused`, { headers: HTML })).text();
    expect(html).not.toContain('<script>');
    const rows = tables(html)[0] ?? [];
    expect(rows.map((r) => [r[1], r[3]])).toEqual([
      ['NoPdfAttachment', '<m1@acme.example>'],
      ['NotAPdf', '<older@acme.example>'],
    ]);
    expect(rows[0]).toEqual([
      new Date(now - 1000).toISOString(),
      'NoPdfAttachment',
      'letters@acme.example',
      '<m1@acme.example>',
      '<script>alert(1)</script>',
      '192.0.2.7 (HELO mta.acme.example)',
      '550 5.6.0 NoPdfAttachment: the message carries no PDF attachment; attach it',
    ]);
    const json = await (await fetch(`${url}/admin/intakes/refused?format=json&limit=1`, { headers: AUTH })).json();
    expect(json).toEqual({ refused: [expect.objectContaining({ reasonCode: 'NoPdfAttachment', clientIp: '192.0.2.7' })] });
  });

  it('counts them by reason in /metrics', async () => {
    const { url, metrics } = await startHarness();
    metrics.observer.sessionRefused('NotAPdf');
    metrics.observer.sessionRefused('NotAPdf');
    metrics.observer.sessionRefused('SenderNotRegistered');
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(metricLine(text, 'letter_intake_session_refusals_total{reason="NotAPdf"}')).toBe(
      'letter_intake_session_refusals_total{reason="NotAPdf"} 2',
    );
    expect(metricLine(text, 'letter_intake_session_refusals_total{reason="SenderNotRegistered"}')).toBe(
      'letter_intake_session_refusals_total{reason="SenderNotRegistered"} 1',
    );
  });

  it('leaves out records older than the retention, and asks for the login', async () => {
    const { url, refusals } = await startHarness({ password: PASSWORD });
    await refusals.add(refusal({ at: Date.now() - 61_000, messageId: '<expired@acme.example>' }));
    await refusals.add(refusal({ messageId: '<kept@acme.example>' }));
    const json = await (await fetch(`${url}/admin/intakes/refused?format=json`, { headers: AUTH })).json();
    expect(json).toEqual({ refused: [expect.objectContaining({ messageId: '<kept@acme.example>' })] });
    expect((await fetch(`${url}/admin/intakes/refused`)).status).toBe(401);
  });
});

describe('replay', () => {
  it('refuses an intake that did not fail, with the reason', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const id = await intakeIn(store, 'submitted', 'Statement', { letterId: 'letter-9' });
    const response = await fetch(`${url}/admin/intakes/${id}/replay`, { method: 'POST', headers: AUTH });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ ok: false, reason: expect.stringContaining('submitted') });
    expect((await store.get(id))?.state).toBe('submitted');
  });

  it("queues a failed intake again from the page's form", async () => {
    const { url, store, queue } = await startHarness({ password: PASSWORD });
    const id = await intakeIn(store, 'failed', 'Statement', { errorCode: 'InvalidCredentials' });
    const response = await fetch(`${url}/admin/intakes/${id}/replay`, {
      method: 'POST',
      headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: '',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Queued again.');
    const record: IntakeRecord | undefined = await store.get(id);
    expect(record?.state).toBe('queued');
    expect((await queue.getJob(id))?.data.intakeId).toBe(id);
  });

  it('refuses a replay posted from another site', async () => {
    const { url, store } = await startHarness({ password: PASSWORD });
    const id = await intakeIn(store, 'failed', 'Statement', { errorCode: 'InvalidCredentials' });
    const response = await fetch(`${url}/admin/intakes/${id}/replay`, {
      method: 'POST',
      headers: { ...AUTH, origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    expect((await store.get(id))?.state).toBe('failed');
  });
});
