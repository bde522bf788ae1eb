// Bulk replay over real Redis: the failed intakes that match a filter (error code, failure time,
// sender) go back to the queue, the others stay failed; the same from the failed-intakes page.
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReplayFilter, replayFailed } from '../../src/intake/bulk-replay.js';
import { INTAKE_QUEUE, type IntakeJobData } from '../../src/intake/queue.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { startOpsServer } from '../../src/ops/server.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, freshStores } from '../helpers/redis.js';

const redis = connectTestRedis();
const stores = freshStores(redis);
const queues: Queue[] = [];
afterAll(async () => {
  for (const queue of queues) await queue.close();
  await stores.dropAll();
  redis.disconnect();
});

const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);
const HOUR = 3600_000;

interface FailedSpec {
  readonly id: string;
  readonly errorCode: string;
  readonly at: number;
  readonly from: string;
  readonly senderId?: string;
}

const FAILED: FailedSpec[] = [
  { id: 'inbulkreplay0000000000000001', errorCode: 'HTTP503', at: T0, from: 'letters@acme.example', senderId: 'acme-id' },
  { id: 'inbulkreplay0000000000000002', errorCode: 'HTTP503', at: T0 + HOUR, from: 'letters@acme.example', senderId: 'acme-id' },
  { id: 'inbulkreplay0000000000000003', errorCode: 'HTTP503', at: T0 + HOUR, from: 'post@other.example', senderId: 'other-id' },
  { id: 'inbulkreplay0000000000000004', errorCode: 'InvalidCredentials', at: T0 + HOUR, from: 'letters@acme.example', senderId: 'acme-id' },
  { id: 'inbulkreplay0000000000000005', errorCode: 'HTTP503', at: T0 + 3 * HOUR, from: 'letters@acme.example', senderId: 'acme-id' },
];

async function setup() {
  const { prefix, store } = stores.next();
  const queue = new Queue<IntakeJobData>(INTAKE_QUEUE, { connection: redis, prefix });
  queues.push(queue);
  for (const spec of FAILED) await failedIntake(store, spec);
  return { store, queue, clock: () => T0 + 4 * HOUR, attempts: 3 };
}

async function failedIntake(store: IntakeStore, spec: FailedSpec): Promise<void> {
  await store.create(
    {
      intakeId: spec.id,
      receivedAt: spec.at - 60_000,
      envelopeFrom: spec.from,
      envelopeTo: [],
      clientIp: '',
      helo: '',
      from: spec.from,
      subject: 's',
      messageId: '',
      sizeBytes: 1,
      auth: {},
    },
    { headers: '', body: UNREAD_BLOB },
    spec.at - 60_000,
  );
  await store.transition(spec.id, ['received'], 'queued', spec.at - 60_000);
  await store.transition(spec.id, ['queued'], 'processing', spec.at - 30_000);
  await store.transition(spec.id, ['processing'], 'failed', spec.at, {
    errorCode: spec.errorCode,
    reason: 'r',
    ...(spec.senderId === undefined ? {} : { senderId: spec.senderId }),
  });
}

const filterOf = (input: Record<string, string>) => {
  const parsed = parseReplayFilter(input);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.filter;
};

const statesOf = async (store: IntakeStore) => Promise.all(FAILED.map(async (f) => (await store.get(f.id))?.state));

describe('bulk replay of failed intakes', () => {
  it('replays those with the error code, in the time range, from the sender; the others stay failed', async () => {
    const deps = await setup();
    const filter = filterOf({
      errorCode: 'HTTP503',
      since: new Date(T0 + HOUR / 2).toISOString(),
      until: new Date(T0 + 2 * HOUR).toISOString(),
      sender: 'Letters@Acme.example',
    });
    const result = await replayFailed(deps, filter);
    expect(result).toEqual({ replayed: ['inbulkreplay0000000000000002'], refused: [], more: false });
    expect(await statesOf(deps.store)).toEqual(['failed', 'queued', 'failed', 'failed', 'failed']);
    expect(await deps.queue.getJobState('inbulkreplay0000000000000002')).toBe('waiting');
  });

  it('matches a sender by its directory id too, and everything with an empty filter, up to the cap', async () => {
    const deps = await setup();
    expect((await replayFailed(deps, filterOf({ sender: 'other-id' }))).replayed).toEqual(['inbulkreplay0000000000000003']);
    const capped = await replayFailed(deps, filterOf({}), 2);
    expect(capped.replayed).toHaveLength(2);
    expect(capped.more).toBe(true);
    const rest = await replayFailed(deps, filterOf({}));
    expect(rest.replayed).toHaveLength(2);
    expect(rest.more).toBe(false);
    expect(await statesOf(deps.store)).toEqual(FAILED.map(() => 'queued'));
  });

  it.each([
    [{ since: 'yesterday' }, /since: not a time/],
    [{ since: '2026-11-25T12:00:00Z', until: '2026-11-25T10:00:00Z' }, /since is after until/],
  ])('refuses the filter %j', (input, error) => {
    const parsed = parseReplayFilter(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });
});

describe('bulk replay from the failed-intakes page', () => {
  it('offers the form on the failed list and replays what the posted filter matches', async () => {
    const deps = await setup();
    const password = 'bulk-replay-password';
    const auth = { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` };
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'silent' }),
      registry: createMetrics({ queue: deps.queue }).registry,
      queue: deps.queue,
      store: deps.store,
      replay: async () => ({ ok: false, reason: 'not used here' }),
      replayFailed: (filter) => replayFailed(deps, filter),
      dashboard: { user: 'admin', password },
      clock: deps.clock,
    });
    try {
      const list = await fetch(`${server.url}/admin/intakes?state=failed`, { headers: { ...auth, accept: 'text/html' } });
      const html = await list.text();
      expect(html).toContain('action="/admin/intakes/replay-failed"');
      expect(html).toContain('name="errorCode"');

      const response = await fetch(`${server.url}/admin/intakes/replay-failed`, {
        method: 'POST',
        headers: { ...auth, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ errorCode: 'InvalidCredentials', since: '', until: '', sender: '' }).toString(),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('1 intake queued again');
      expect(await statesOf(deps.store)).toEqual(['failed', 'failed', 'failed', 'queued', 'failed']);

      const bad = await fetch(`${server.url}/admin/intakes/replay-failed`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'since=soon',
      });
      expect(bad.status).toBe(400);
    } finally {
      await server.close();
    }
  });
});
