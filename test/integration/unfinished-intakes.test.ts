// An intake's fate does not depend on catching an event: BullMQ fails some jobs on its own
// (stalled too often) and a job can vanish, while nobody listens. Every worker sweeps at start
// and periodically; an intake queued or processing past the bound whose job will never end it
// is failed, replayable, with an operator alert. Intakes whose job lives are left alone.
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { EndedMarker } from '../../src/intake/markers.js';
import { type IntakeObserver, silentObserver } from '../../src/intake/observer.js';
import { INTAKE_QUEUE, type IntakeJobData, intakeJobOptions } from '../../src/intake/queue.js';
import type { IntakeState } from '../../src/intake/record.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { reconcileOnce } from '../../src/worker/reconciler.js';
import { abandonByStalling } from '../helpers/failed-jobs.js';
import { startTestGateway } from '../helpers/gateway.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, freshStores } from '../helpers/redis.js';

const redis = connectTestRedis();
const stores = freshStores(redis);

afterAll(async () => {
  await stores.dropAll();
  redis.disconnect();
});

function setup() {
  const { prefix, store } = stores.next();
  return { prefix, store, queue: new Queue<IntakeJobData>(INTAKE_QUEUE, { connection: redis, prefix }) };
}

/** A record that entered `state` at `at` (ms since the epoch), with its job unless `job` is false. */
async function intakeIn(
  env: ReturnType<typeof setup>,
  id: string,
  state: Extract<IntakeState, 'queued' | 'processing' | 'rejected'>,
  at: number,
  job = true,
) {
  const { store, queue } = env;
  await store.create(
    {
      intakeId: id,
      receivedAt: at,
      envelopeFrom: '',
      envelopeTo: [],
      clientIp: '',
      helo: '',
      from: 'a@b.example',
      subject: 's',
      messageId: '',
      sizeBytes: 1,
      auth: {},
    },
    { headers: '', body: UNREAD_BLOB },
    at,
  );
  await store.transition(id, ['received'], 'queued', at);
  if (state !== 'queued') await store.transition(id, ['queued'], 'processing', at);
  if (state === 'rejected') await store.transition(id, ['processing'], 'rejected', at, { reasonCode: 'NoPdfAttachment' });
  if (job) await queue.add('intake', { intakeId: id, from: 'a@b.example', sizeBytes: 1 }, intakeJobOptions(id, 1));
}

function alertRecorder(): IntakeObserver & { alerts: string[] } {
  const alerts: string[] = [];
  return { ...silentObserver, alerts, operatorAlert: (code) => alerts.push(code) };
}

describe('a worker starting after BullMQ gave up on a job', () => {
  it('fails the intake as JobAbandoned, keeping its message for replay, and raises the operator alert, though no worker saw the event', async () => {
    const env = setup();
    const id = 'inunfinished000000000000001';
    await intakeIn(env, id, 'processing', Date.now() - 60_000);
    await abandonByStalling(redis, env.queue, env.prefix, id);
    expect(await env.queue.getJobState(id)).toBe('failed');

    const observer = alertRecorder();
    const gateway = await startTestGateway({
      worker: true,
      observer,
      env: { REDIS_PREFIX: env.prefix, WORKER_SWEEP_AGE_MS: '1000', WORKER_SWEEP_INTERVAL_MS: '200' },
    });
    try {
      const record = await gateway.settled(id, 10_000);
      expect(record).toMatchObject({ state: 'failed', errorCode: 'JobAbandoned' });
      expect(record.reason).toContain('stalled more than allowable limit');
      expect(await redis.zscore(env.store.blobKeys.due, UNREAD_BLOB.blobKey)).toBeNull(); // its message is kept for replay
      // the record is written before the alert is raised: wait for it
      await vi.waitFor(() => expect(observer.alerts).toEqual(['JobAbandoned']), { timeout: 5000 });
      expect(gateway.logs.find((l) => l.event === 'intake.failed' && l.intakeId === id)?.level).toBe(50);
    } finally {
      await gateway.close();
    }
  });

  it('fails an intake left processing whose job is gone as JobLost', async () => {
    const env = setup();
    const id = 'inunfinished000000000000002';
    await intakeIn(env, id, 'processing', Date.now() - 60_000, false);
    const observer = alertRecorder();
    const gateway = await startTestGateway({
      worker: true,
      observer,
      env: { REDIS_PREFIX: env.prefix, WORKER_SWEEP_AGE_MS: '1000', WORKER_SWEEP_INTERVAL_MS: '200' },
    });
    try {
      expect(await gateway.settled(id, 10_000)).toMatchObject({ state: 'failed', errorCode: 'JobLost' });
      // the record is written before the alert is raised: wait for it
      await vi.waitFor(() => expect(observer.alerts).toEqual(['JobLost']), { timeout: 5000 });
    } finally {
      await gateway.close();
    }
  });
});

describe('one sweep', () => {
  const logger = createLogger({ level: 'silent' });
  const SWEEP = { logger, observer: silentObserver, ageMs: 10_000, attempts: 3 };
  /** The notices each failed intake asked for: (intake id, outcome). */
  const noticesAsked: (readonly [string, string])[] = [];
  const notices = {
    onOutcome: async (intakeId: string, kind: string) => {
      noticesAsked.push([intakeId, kind]);
      return undefined;
    },
  };

  it('leaves alone intakes whose job waits, intakes younger than the bound, and intakes that ended; the lost one asks for its notice', async () => {
    const env = setup();
    const now = Date.now();
    await intakeIn(env, 'inunfinished000000000000010', 'queued', now - 60_000); // job waiting: live
    await intakeIn(env, 'inunfinished000000000000011', 'processing', now - 500, false); // no job, but too young
    await intakeIn(env, 'inunfinished000000000000012', 'rejected', now - 60_000, false); // ended
    await intakeIn(env, 'inunfinished000000000000013', 'processing', now - 60_000, false); // old, no job: lost
    const failed = await reconcileOnce({ ...env, ...SWEEP, clock: () => now, notices });
    expect(failed).toEqual(['inunfinished000000000000013']);
    expect(noticesAsked).toEqual([['inunfinished000000000000013', 'failed']]);
    const states = await Promise.all(
      ['10', '11', '12', '13'].map(async (n) => (await env.store.get(`inunfinished0000000000000${n}`))?.state),
    );
    expect(states).toEqual(['queued', 'processing', 'rejected', 'failed']);
    expect(await env.queue.getJobState('inunfinished000000000000013')).toBe('unknown');
    await env.queue.close();
  });

  it('pages past live intakes to reach the dead ones behind them', async () => {
    const env = setup();
    const now = Date.now();
    for (let i = 0; i < 250; i += 1) await intakeIn(env, `inunfinishedlive${String(i).padStart(11, '0')}`, 'queued', now - 60_000 + i);
    await intakeIn(env, 'inunfinisheddead00000000001', 'processing', now - 30_000, false);
    const failed = await reconcileOnce({ ...env, ...SWEEP, clock: () => now, notices });
    expect(failed).toEqual(['inunfinisheddead00000000001']);
    await env.queue.close();
  });

  it('queues again a queued intake whose job is gone before any attempt began (a failover kept the record, not the job)', async () => {
    const env = setup();
    const now = Date.now();
    const untouched = 'inunfinishedrequeue00000001';
    await intakeIn(env, untouched, 'queued', now - 60_000, false);
    const failed = await reconcileOnce({ ...env, ...SWEEP, clock: () => now, notices });
    expect(failed).toEqual([]);
    expect((await env.store.get(untouched))?.state).toBe('queued');
    expect(await env.queue.getJobState(untouched)).toBe('waiting');
    expect((await env.queue.getJob(untouched))?.data).toEqual({ intakeId: untouched, from: 'a@b.example', sizeBytes: 1 });
    expect(noticesAsked.filter(([id]) => id === untouched)).toEqual([]);
    await env.queue.close();
  });

  it('fails as JobLost a queued intake whose job is gone after an attempt marked a draft (queued again, it could make a second letter unseen)', async () => {
    const env = setup();
    const now = Date.now();
    const marked = 'inunfinishedmarked000000001';
    await intakeIn(env, marked, 'queued', now - 60_000, false);
    await redis.hset(`${env.prefix}:record:${marked}`, 'draftRequestedAt', String(now - 120_000));
    const failed = await reconcileOnce({ ...env, ...SWEEP, clock: () => now, notices });
    expect(failed).toEqual([marked]);
    expect(await env.store.get(marked)).toMatchObject({ state: 'failed', errorCode: 'JobLost' });
    await env.queue.close();
  });
});

describe('a failed intake whose notice could not be queued', () => {
  const logger = createLogger({ level: 'silent' });

  it('is found by a later sweep, which queues its notice; one whose notice entry exists is left alone', async () => {
    const env = setup();
    const now = Date.now();
    const lost = 'inunfinishedowed00000000001';
    const told = 'inunfinishedtold00000000002';
    await intakeIn(env, lost, 'processing', now - 60_000, false);
    await intakeIn(env, told, 'processing', now - 60_000, false);
    const refusing = {
      onOutcome: async () => {
        throw new Error('Redis refused the notice job');
      },
    };
    const sweep = (clock: number, notices: { onOutcome: (id: string, kind: string) => Promise<undefined> }) =>
      reconcileOnce({ ...env, clock: () => clock, logger, observer: silentObserver, notices, ageMs: 10_000, attempts: 3 });
    await sweep(now, refusing).catch(() => undefined); // however the sweep reports the refusal
    expect((await env.store.get(lost))?.state).toBe('failed');
    expect((await env.store.get(told))?.state).toBe('failed');
    // The second one's notice was queued after all (by another worker, say): its entry exists.
    await new NoticeLedger(redis, env.prefix).move(told, 'failed', ['absent'], { state: 'queued', at: now });

    const asked: (readonly [string, string])[] = [];
    await sweep(now + 60_000, { onOutcome: async (id, kind) => void asked.push([id, kind]) });
    expect(asked).toEqual([[lost, 'failed']]);
    await env.queue.close();
  });

  it("writes a failed intake's ended/ failed, and when the raw store refuses, alerts once and writes it on the next sweep", async () => {
    const env = setup();
    const now = Date.now();
    const id = 'inunfinishedmark00000000001';
    await intakeIn(env, id, 'processing', now - 60_000, false);
    const written: EndedMarker[] = [];
    let refusals = 1;
    const markers = {
      putEnded: async (marker: EndedMarker) => {
        if (refusals-- > 0) throw new Error('the raw store is unreachable');
        written.push(marker);
      },
    };
    const observer = alertRecorder();
    const unmarked = new Set<string>();
    const sweep = (clock: number) =>
      reconcileOnce({
        ...env,
        logger: createLogger({ level: 'silent' }),
        observer,
        clock: () => clock,
        notices: { onOutcome: async () => undefined },
        ageMs: 10_000,
        attempts: 3,
        markers,
        unmarked,
      });
    expect(await sweep(now)).toEqual([id]);
    expect(written).toEqual([]);
    expect(observer.alerts).toEqual(['JobLost', 'EndNotMarked']);

    await sweep(now + 60_000);
    expect(written).toEqual([expect.objectContaining({ intakeId: id, outcome: 'failed', errorCode: 'JobLost' })]);
    expect(observer.alerts).toEqual(['JobLost', 'EndNotMarked']);
    expect(unmarked.size).toBe(0);
    await env.queue.close();
  });
});
