// A notice's fate does not depend on catching an event either. BullMQ fails a notice job on its
// own when it stalls too often, and a processor that throws something unexpected on its last
// attempt leaves the job failed; either way the record's notice entry would stay `queued`,
// `sending` or `committed` for good, showing a notice on its way that never comes. Every worker
// sweeps the notices' failed jobs: such an entry ends `failed` (or `unconfirmed` once the relay
// may have the message) with the job's reason, logged at error level, with the operator alert.
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { intakeKeys } from '../../src/intake/keys.js';
import type { NoticeState } from '../../src/intake/notice-fields.js';
import { type IntakeObserver, silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import { ABSENT, NoticeLedger } from '../../src/notices/ledger.js';
import { sweepAbandonedNotices } from '../../src/notices/notice-sweep.js';
import { NOTICE_QUEUE, type NoticeJobData, noticeJobId, noticesFor } from '../../src/notices/queue.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import type { NoticeKind } from '../../src/words/notice-kind.js';
import { abandonByStalling, failForGood } from '../helpers/failed-jobs.js';
import { startTestGateway } from '../helpers/gateway.js';
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

function setup() {
  const { prefix, store } = stores.next();
  const queue = new Queue<NoticeJobData>(NOTICE_QUEUE, { connection: redis, prefix });
  queues.push(queue);
  return { prefix, store, queue, ledger: new NoticeLedger(redis, prefix) };
}

type Env = ReturnType<typeof setup>;

/** An intake that ended `failed`, with its notice queued as the processor queues it. */
async function failedIntakeWithNotice(env: Env, id: string): Promise<void> {
  const now = Date.now();
  await env.store.create(
    {
      intakeId: id,
      receivedAt: now,
      envelopeFrom: 'bounce@acme.example',
      envelopeTo: [],
      clientIp: '',
      helo: '',
      from: 'letters@acme.example',
      subject: 's',
      messageId: '',
      sizeBytes: 1,
      auth: {},
    },
    { headers: '', body: UNREAD_BLOB },
    now,
  );
  await env.store.transition(id, ['received'], 'queued', now);
  await env.store.transition(id, ['queued'], 'processing', now);
  await env.store.transition(id, ['processing'], 'failed', now, { errorCode: 'WorkerError', reason: 'r' });
  const notices = noticesFor({
    queue: env.queue,
    ledger: env.ledger,
    directory: parseSenderDirectory({ senders: [] }, {}),
    attempts: 3,
    clock: Date.now,
    logger: createLogger({ level: 'silent' }),
    observer: silentObserver,
  });
  await notices.onOutcome(id, 'failed', undefined);
}

/** Moves the notice's entry along the ledger's own path, from where it is up to `state`. */
async function advance(env: Env, id: string, kind: NoticeKind, state: NoticeState): Promise<void> {
  const path: NoticeState[] = ['queued', 'sending', 'committed', 'sent'];
  let from: NoticeState | typeof ABSENT = (await env.store.get(id))?.notices?.[kind]?.state ?? ABSENT;
  for (const step of path.slice(from === ABSENT ? 0 : path.indexOf(from) + 1, path.indexOf(state) + 1)) {
    expect(await env.ledger.move(id, kind, [from], { state: step, at: Date.now() })).toEqual({ ok: true });
    from = step;
  }
}

/** A notice job whose processor throws an unexpected error on its only attempt. */
async function failByProcessorError(env: Env, id: string, kind: NoticeKind): Promise<void> {
  await failJob(env, noticeJobId(id, kind), { intakeId: id, kind });
}

/** Adds a job with `data` and has a processor give up on it with an unexpected error. */
async function failJob(env: Env, jobId: string, data: unknown): Promise<void> {
  await env.queue.add('notice', data as NoticeJobData, { jobId });
  await failForGood(redis, env.queue, env.prefix, jobId, 'the original headers could not be read');
  expect(await env.queue.getJobState(jobId)).toBe('failed');
}

function alertRecorder(): IntakeObserver & { alerts: string[]; states: string[] } {
  const alerts: string[] = [];
  const states: string[] = [];
  return {
    ...silentObserver,
    alerts,
    states,
    operatorAlert: (code) => alerts.push(code),
    noticeState: (kind, state) => states.push(`${kind}:${state}`),
  };
}

describe('a worker starting after BullMQ gave up on a notice job', () => {
  it('records the notice failed with the job’s reason and raises the operator alert, though no worker saw the event', async () => {
    const env = setup();
    const id = 'innoticeabandoned0000000001';
    await failedIntakeWithNotice(env, id);
    expect((await env.store.get(id))?.notices?.failed?.state).toBe('queued');
    await abandonByStalling(redis, env.queue, env.prefix, noticeJobId(id, 'failed'));
    expect(await env.queue.getJobState(noticeJobId(id, 'failed'))).toBe('failed');

    const observer = alertRecorder();
    const gateway = await startTestGateway({
      worker: true,
      observer,
      env: { REDIS_PREFIX: env.prefix, WORKER_SWEEP_INTERVAL_MS: '200' },
    });
    try {
      await vi.waitFor(async () => expect((await env.store.get(id))?.notices?.failed?.state).toBe('failed'), { timeout: 10_000 });
      const entry = (await env.store.get(id))?.notices?.failed;
      expect(entry?.reason).toContain('stalled more than allowable limit');
      await vi.waitFor(() => expect(observer.alerts).toEqual(['NoticeAbandoned']), { timeout: 5000 });
      expect(observer.states).toContain('failed:failed');
      const line = gateway.logs.find((l) => l.event === 'notice.failed' && l.intakeId === id);
      expect(line).toMatchObject({ level: 50, kind: 'failed', errorCode: 'NoticeAbandoned' });
    } finally {
      await gateway.close();
    }
  });
});

describe('one sweep of the notices’ failed jobs', () => {
  const logger = createLogger({ level: 'silent' });

  it('ends each unfinished entry by where it stopped, and leaves finished entries and live jobs alone', async () => {
    const env = setup();
    const ids = {
      queued: 'innoticesweep00000000000001',
      sending: 'innoticesweep00000000000002',
      committed: 'innoticesweep00000000000003',
      alreadySent: 'innoticesweep00000000000004',
      waiting: 'innoticesweep00000000000005',
    };
    const failing = [ids.queued, ids.sending, ids.committed, ids.alreadySent];
    for (const id of failing) await failedIntakeWithNotice(env, id);
    await advance(env, ids.sending, 'failed', 'sending');
    await advance(env, ids.sending, 'rejected', 'sending'); // a second kind on the same record, whose job did not fail
    await advance(env, ids.committed, 'failed', 'committed');
    await advance(env, ids.alreadySent, 'failed', 'sent');
    // their jobs fail on their processor's unexpected error; then one more notice whose job waits
    for (const id of failing) {
      await env.queue.remove(noticeJobId(id, 'failed'));
      await failByProcessorError(env, id, 'failed');
    }
    await failedIntakeWithNotice(env, ids.waiting);

    const observer = alertRecorder();
    const ended = await sweepAbandonedNotices({
      queue: env.queue,
      ledger: env.ledger,
      store: env.store,
      clock: Date.now,
      logger,
      observer,
    });
    expect(ended.map((e) => [e.intakeId, e.kind, e.state]).sort()).toEqual(
      [
        [ids.queued, 'failed', 'failed'],
        [ids.sending, 'failed', 'failed'],
        [ids.committed, 'failed', 'unconfirmed'],
      ].sort(),
    );
    const entries = await Promise.all(Object.values(ids).map(async (id) => (await env.store.get(id))?.notices));
    expect(entries.map((n) => n?.failed?.state)).toEqual(['failed', 'failed', 'unconfirmed', 'sent', 'queued']);
    expect(entries[0]?.failed?.reason).toContain('the original headers could not be read');
    expect(entries[2]?.failed?.reason).toContain('may have');
    expect(entries[1]?.rejected?.state).toBe('sending'); // its job lives on elsewhere (none failed)
    expect(observer.alerts).toEqual(['NoticeAbandoned', 'NoticeAbandoned', 'NoticeAbandoned']);

    // a second sweep finds nothing more to end
    expect(
      await sweepAbandonedNotices({ queue: env.queue, ledger: env.ledger, store: env.store, clock: Date.now, logger, observer }),
    ).toEqual([]);
    expect(observer.alerts).toHaveLength(3);
  });

  it('looks back no further than its bound, and not at notices whose record is gone or jobs that are not notices', async () => {
    const env = setup();
    const old = 'innoticesweep00000000000010';
    const gone = 'innoticesweep00000000000011';
    for (const id of [old, gone]) {
      await failedIntakeWithNotice(env, id);
      await env.queue.remove(noticeJobId(id, 'failed'));
      await failByProcessorError(env, id, 'failed');
    }
    await redis.del(intakeKeys(env.prefix).record(gone));
    // and two failed jobs that are not notices of this gateway: the sweep passes over them
    await failJob(env, 'not-a-notice-1', { something: 'else' });
    await failJob(env, 'not-a-notice-2', { intakeId: old, kind: 'postcard' });
    const observer = alertRecorder();
    const inTwoHours = () => Date.now() + 2 * 3600_000;
    const deps = { queue: env.queue, ledger: env.ledger, store: env.store, logger, observer };
    expect(await sweepAbandonedNotices({ ...deps, clock: inTwoHours })).toEqual([]);
    expect((await env.store.get(old))?.notices?.failed?.state).toBe('queued');
    const ended = await sweepAbandonedNotices({ ...deps, clock: Date.now });
    expect(ended.map((e) => e.intakeId)).toEqual([old]);
    expect(observer.alerts).toEqual(['NoticeAbandoned']);
  });
});
