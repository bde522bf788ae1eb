// The intake pages at scale, over real HTTP and real Redis (a random prefix per test): search by
// Message-ID, From, intake id and letter id; counts per state and reason for the last hour and
// day; paging; the letter and the notice on an intake's page.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createIntakeQueue } from '../../src/intake/queue.js';
import type { IntakeUpdate } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { startOpsServer } from '../../src/ops/server.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const HTML = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`, accept: 'text/html' };
const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPages(): Promise<{ url: string; store: IntakeStore; prefix: string }> {
  const prefix = randomPrefix();
  const redis = connectTestRedis();
  const queue = createIntakeQueue(redis, prefix);
  const store = new IntakeStore(redis, prefix, { rawMs: 7 * 24 * HOUR, recordMs: 90 * 24 * HOUR });
  const metrics = createMetrics();
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: metrics.registry,
    redis,
    queue,
    store,
    dashboard: { user: 'admin', password: 'pw' },
    clock: () => NOW,
  });
  cleanups.push(async () => {
    await server.close();
    await queue.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  return { url: server.url, store, prefix };
}

interface Intake {
  readonly from?: string;
  readonly messageId?: string;
  readonly endedAt: number;
}

/** An intake received a minute before it ended in `state`. */
async function intake(
  store: IntakeStore,
  state: 'submitted' | 'rejected' | 'failed',
  update: IntakeUpdate,
  options: Intake,
): Promise<string> {
  const intakeId = `in${randomBytes(12).toString('hex')}`;
  const t0 = options.endedAt - MINUTE;
  const from = options.from ?? 'letters@acme.example';
  await store.create(
    {
      intakeId,
      receivedAt: t0,
      envelopeFrom: from,
      envelopeTo: ['letters@intake.example'],
      clientIp: '127.0.0.1',
      helo: 'mta.example',
      from,
      subject: 'Statement',
      messageId: options.messageId ?? `<${intakeId}@example>`,
      sizeBytes: 100,
      auth: {},
    },
    { headers: '', body: UNREAD_BLOB },
    t0,
  );
  await store.transition(intakeId, ['received'], 'queued', t0 + 1);
  await store.transition(intakeId, ['queued'], 'processing', t0 + 2);
  expect(await store.transition(intakeId, ['processing'], state, options.endedAt, update)).toEqual({ ok: true });
  return intakeId;
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const text = (html: string): string =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e)
    .trim();
/** The rows (cell texts) of the page's table of class `name`. */
function rows(html: string, name: string): string[][] {
  const table = new RegExp(`<table class="${name}">[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => text(c[1] ?? '')),
  );
}
const page = async (url: string): Promise<string> => {
  const response = await fetch(url, { headers: HTML });
  expect(response.status).toBe(200);
  return response.text();
};

describe('searching intakes', () => {
  it('finds an intake by its Message-ID (with or without brackets, in any case), its From, its id and its letter id', async () => {
    const { url, store } = await startPages();
    const wanted = await intake(
      store,
      'submitted',
      { letterId: 'letter-4711' },
      { messageId: '<Invoice-2026-11@acme.example>', endedAt: NOW - MINUTE },
    );
    const globex1 = await intake(
      store,
      'rejected',
      { reasonCode: 'NoPdfAttachment' },
      { from: 'letters@globex.example', endedAt: NOW - 3 * MINUTE },
    );
    const globex2 = await intake(
      store,
      'failed',
      { errorCode: 'InvalidCredentials' },
      { from: 'letters@globex.example', endedAt: NOW - 2 * MINUTE },
    );
    const idsFor = async (q: string): Promise<string[]> =>
      rows(await page(`${url}/admin/intakes?q=${encodeURIComponent(q)}`), 'intakes').map((r) => r[0] ?? '');

    expect(await idsFor('<Invoice-2026-11@acme.example>')).toEqual([wanted]);
    expect(await idsFor('invoice-2026-11@ACME.example')).toEqual([wanted]);
    expect(await idsFor('Letters@Globex.example')).toEqual([globex2, globex1]);
    expect(await idsFor(globex1)).toEqual([globex1]);
    expect(await idsFor('letter-4711')).toEqual([wanted]);
    expect(await idsFor('<nothing@nowhere.example>')).toEqual([]);
  });

  it('narrows a search to the states asked for', async () => {
    const { url, store } = await startPages();
    await intake(store, 'rejected', { reasonCode: 'NoPdfAttachment' }, { from: 'letters@globex.example', endedAt: NOW - 3 * MINUTE });
    const failed = await intake(
      store,
      'failed',
      { errorCode: 'InvalidCredentials' },
      { from: 'letters@globex.example', endedAt: NOW - 2 * MINUTE },
    );
    const html = await page(`${url}/admin/intakes?q=letters%40globex.example&state=failed`);
    expect(rows(html, 'intakes').map((r) => r[0])).toEqual([failed]);
  });
});

describe('counts', () => {
  it('counts intakes per state and per reason that ended in the last hour and the last day', async () => {
    const { url, store } = await startPages();
    await intake(store, 'submitted', { letterId: 'l-1' }, { endedAt: NOW - 5 * MINUTE });
    await intake(store, 'rejected', { reasonCode: 'NoPdfAttachment' }, { endedAt: NOW - 10 * MINUTE });
    await intake(store, 'rejected', { reasonCode: 'NoPdfAttachment' }, { endedAt: NOW - 20 * MINUTE });
    await intake(store, 'rejected', { reasonCode: 'NoPdfAttachment' }, { endedAt: NOW - 3 * HOUR });
    await intake(store, 'rejected', { reasonCode: 'MissingSubject' }, { endedAt: NOW - 30 * HOUR });
    await intake(store, 'failed', { errorCode: 'InvalidCredentials' }, { endedAt: NOW - 30 * MINUTE });
    const html = await page(`${url}/admin/intakes`);
    expect(rows(html, 'by-state').slice(0, 3)).toEqual([
      ['submitted', '1', '1', ''],
      ['rejected', '2', '3', ''],
      ['failed', '1', '1', ''],
    ]);
    expect(rows(html, 'by-reason')).toEqual([
      ['failed', 'InvalidCredentials', '1', '1'],
      ['rejected', 'NoPdfAttachment', '2', '3'],
    ]);
  });
});

describe('the first page', () => {
  it('shows the latest intakes of every state, the reason code once, and each count as a link to its list', async () => {
    const { url, store } = await startPages();
    const submitted = await intake(store, 'submitted', { letterId: 'l-1' }, { endedAt: NOW - 5 * MINUTE });
    const rejected = await intake(
      store,
      'rejected',
      { reasonCode: 'PdfActiveContent', reason: 'PdfActiveContent: bill.pdf carries JavaScript' },
      { endedAt: NOW - 10 * MINUTE },
    );
    const failed = await intake(
      store,
      'failed',
      { errorCode: 'InvalidCredentials', reason: 'login refused' },
      { endedAt: NOW - 15 * MINUTE },
    );
    const html = await page(`${url}/admin/intakes`);
    expect(rows(html, 'intakes').map((r) => [r[0], r[1], r[5]])).toEqual([
      [submitted, 'submitted', 'l-1'],
      [rejected, 'rejected', 'PdfActiveContent: bill.pdf carries JavaScript'],
      [failed, 'failed', 'InvalidCredentials: login refused'],
    ]);
    for (const state of ['submitted', 'rejected', 'failed']) expect(html).toContain(`<a href="/admin/intakes?state=${state}">1</a>`);
    expect(html).toContain('<a href="/admin/intakes?state=rejected">PdfActiveContent</a>');
  });
});

describe('paging', () => {
  it('pages through failed intakes newest first, with links to the older and newer pages', async () => {
    const { url, store } = await startPages();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await intake(store, 'failed', { errorCode: 'ServiceUnavailable' }, { endedAt: NOW - (10 - i) * MINUTE }));
    const newestFirst = [...ids].reverse();
    const first = await page(`${url}/admin/intakes?state=failed&limit=2`);
    expect(rows(first, 'intakes').map((r) => r[0])).toEqual(newestFirst.slice(0, 2));
    expect(first).not.toContain('rel="prev"');
    const older = /<a rel="next" href="([^"]+)"/.exec(first)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(older).toBe('/admin/intakes?state=failed&limit=2&page=2');
    const second = await page(`${url}${older}`);
    expect(rows(second, 'intakes').map((r) => r[0])).toEqual(newestFirst.slice(2, 4));
    const last = await page(`${url}/admin/intakes?state=failed&limit=2&page=3`);
    expect(rows(last, 'intakes').map((r) => r[0])).toEqual(newestFirst.slice(4));
    expect(last).not.toContain('rel="next"');
    expect(last).toContain('rel="prev"');
  });

  it('refuses a page past the paging depth', async () => {
    const { url } = await startPages();
    const response = await fetch(`${url}/admin/intakes?limit=1000&page=11`, { headers: HTML });
    expect(response.status).toBe(400);
  });
});

describe("an intake's page", () => {
  it("shows the letter in the Sender API's terms and the notices sent to the sender", async () => {
    const { url, store, prefix } = await startPages();
    const submitted = await intake(store, 'submitted', { letterId: 'letter-42', letterStatus: 'Approved' }, { endedAt: NOW - MINUTE });
    const submittedPage = await page(`${url}/admin/intakes/${submitted}`);
    expect(rows(submittedPage, 'letter')).toEqual([
      ['id', 'letter-42'],
      ['status', 'Approved (when submitted; approval may have moved it on)'],
      ['in the Sender API', 'GET /api/v1/letters/letter-42'],
    ]);
    expect(submittedPage).not.toContain('Notices to the sender');

    const rejected = await intake(store, 'rejected', { reasonCode: 'NoPdfAttachment' }, { endedAt: NOW - MINUTE });
    const redis = connectTestRedis();
    const entry = { state: 'sent', at: NOW, to: 'letters@acme.example', messageId: '<notice.rejected.x@mx.example>' };
    await redis.hset(`${prefix}:record:${rejected}`, { 'notice.rejected.state': 'sent', 'notice.rejected': JSON.stringify(entry) });
    redis.disconnect();
    const rejectedPage = await page(`${url}/admin/intakes/${rejected}`);
    expect(rejectedPage).toContain('Notices to the sender');
    expect(rejectedPage).toContain('rejected notice: sent · 2026-11-20T12:00:00.000Z · to letters@acme.example');
    expect(rejectedPage).toContain('No letter was created for this intake.');
    const json = await (await fetch(`${url}/admin/intakes/${rejected}?format=json`, { headers: HTML })).json();
    expect(json).toMatchObject({ intake: { notices: { rejected: { state: 'sent', to: 'letters@acme.example' } } } });
  });

  it('shows the runs a replay ended beside the current one, newest first', async () => {
    const { url, store } = await startPages();
    const id = await intake(
      store,
      'failed',
      { errorCode: 'InvalidCredentials', reason: 'login refused', attempts: 1 },
      { endedAt: NOW - 30 * MINUTE },
    );
    await store.transition(id, ['failed'], 'queued', NOW - 20 * MINUTE);
    await store.transition(id, ['queued'], 'processing', NOW - 20 * MINUTE + 5, { attempts: 12 });
    await store.transition(id, ['processing'], 'failed', NOW - 10 * MINUTE, { errorCode: 'ServiceUnavailable', reason: 'HTTP 503' });
    await store.transition(id, ['failed'], 'queued', NOW - 2 * MINUTE);
    const html = await page(`${url}/admin/intakes/${id}`);
    expect(rows(html, 'timeline')).toEqual([
      ['received', '2026-11-20T11:29:00.000Z'],
      ['queued', '2026-11-20T11:58:00.000Z'],
    ]);
    expect(rows(html, 'earlier-runs')).toEqual([
      ['2026-11-20T11:40:00.000Z', '2026-11-20T11:50:00.000Z', '12', 'ServiceUnavailable: HTTP 503'],
      ['2026-11-20T11:29:00.001Z', '2026-11-20T11:30:00.000Z', '1', 'InvalidCredentials: login refused'],
    ]);
  });
});
