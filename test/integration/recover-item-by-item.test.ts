// One bad item never stops a run: `recover`, the unfinished-intake sweep and the raw store's
// housekeeping handle each intake, blob and marker alone. A failed item is counted, logged with
// its key, alerted once, and the run goes on; what it left half done (an intake `received` with
// no job) is finished by the sweep.
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptIntake } from '../../src/intake/accept.js';
import { blobIndexKeys, redisBlobIndex } from '../../src/intake/blob-index.js';
import { acceptedMarker, IntakeMarkers } from '../../src/intake/markers.js';
import { silentObserver } from '../../src/intake/observer.js';
import { createIntakeQueue, INTAKE_QUEUE, type IntakeJobData } from '../../src/intake/queue.js';
import type { NewIntake } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { startHousekeeping } from '../../src/raw-store/housekeeping.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { type RecoverDeps, recoverIntakes } from '../../src/recover/recover.js';
import { reconcileOnce } from '../../src/worker/reconciler.js';
import { capturedLogs } from '../helpers/captured-logs.js';
import { freshRawStores, putBlob, RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const redis = connectTestRedis();
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await dropPrefix(redis, prefix);
  redis.disconnect();
});

const intake = (intakeId: string, receivedAt = Date.now()): NewIntake => ({
  intakeId,
  receivedAt,
  envelopeFrom: 'b@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '192.0.2.7',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Invoice 7',
  messageId: `<${intakeId}@acme.example>`,
  sizeBytes: 17,
  auth: { spf: 'pass', dkim: 'pass' },
});

/** A marker as a newer version of the gateway writes it (a rolling deploy): this version cannot parse it. */
const NEWER_MARKER = JSON.stringify({ v: 2, intakeId: 'x', something: 'new' });

function setup(rawStore: RawStore) {
  const prefix = randomPrefix();
  prefixes.push(prefix);
  const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  const queue = createIntakeQueue(redis, prefix);
  const markers = new IntakeMarkers(rawStore);
  const alerts: string[] = [];
  const captured = capturedLogs();
  const deps: RecoverDeps = {
    store,
    queue,
    rawStore,
    markers,
    clock: Date.now,
    attempts: 3,
    logger: captured.logger,
    ledger: new NoticeLedger(redis, prefix),
    noticeLifetimeMs: 3_600_000,
    observer: { operatorAlert: (code) => alerts.push(code) },
  };
  const accept = async (id: string) =>
    acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs: 5000, markers }, intake(id), {
      headers: 'Received-SPF: pass\r\n',
      body: () => putBlob(rawStore, Buffer.from(`Subject: ${id}\r\n\r\nletter\r\n`)),
    });
  return { prefix, store, queue, markers, deps, accept, alerts, captured, loseRedis: () => dropPrefix(redis, prefix) };
}

const file = RAW_STORE_KINDS.filter((kind) => kind.name === 'file');

describe.each(file)('recover, one intake at a time ($name store)', (kind) => {
  const open = freshRawStores(kind);

  it('recovers the others when one accepted/ marker cannot be parsed, and counts, logs and alerts that one', async () => {
    const { store, queue, deps, accept, loseRedis, alerts, captured } = setup(open().store);
    await accept('initembyitem00000000001');
    await accept('initembyitem00000000003');
    await deps.rawStore.putMarker('accepted', 'initembyitem00000000002', NEWER_MARKER, 'replace');
    await loseRedis();

    const report = await recoverIntakes(deps);
    expect(report.counts).toMatchObject({ queue: 2, error: 1 });
    expect((await store.get('initembyitem00000000001'))?.state).toBe('queued');
    expect((await store.get('initembyitem00000000003'))?.state).toBe('queued');
    expect(captured.events('recover.intake_failed')).toEqual([expect.objectContaining({ intakeId: 'initembyitem00000000002', level: 50 })]);
    expect(alerts).toEqual(['RecoverFailed']);
    await queue.close();
  });

  it('goes on past an intake whose job Redis would not take, and the sweep queues that intake, left received', async () => {
    const env = setup(open().store);
    const { store, queue, deps, accept, loseRedis, alerts } = env;
    await accept('initembyitem00000000011');
    await loseRedis();
    // A queue whose connection is gone: its add fails as any Redis error would.
    const gone = connectTestRedis();
    const refusing = new Queue<IntakeJobData>(INTAKE_QUEUE, { connection: gone, prefix: env.prefix });
    gone.disconnect();
    const report = await recoverIntakes({ ...deps, queue: refusing });
    expect(report.counts).toMatchObject({ queue: 0, error: 1 });
    expect((await store.get('initembyitem00000000011'))?.state).toBe('received');
    expect(await queue.getJobState('initembyitem00000000011')).toBe('unknown');
    expect(alerts).toEqual(['RecoverFailed']);
    await refusing.close().catch(() => undefined);

    const later = Date.now() + 60_000;
    await reconcileOnce({
      store,
      queue,
      clock: () => later,
      logger: deps.logger,
      observer: silentObserver,
      notices: { onOutcome: async () => undefined },
      ageMs: 10_000,
      attempts: 3,
      markers: env.markers,
    });
    expect((await store.get('initembyitem00000000011'))?.state).toBe('queued');
    expect(await queue.getJobState('initembyitem00000000011')).toBe('waiting');
    await queue.close();
  });
});

describe.each(file)('the sweep and received intakes with no job ($name store)', (kind) => {
  const open = freshRawStores(kind);

  it('queues one that accepted/ says may have been answered 250, and leaves one answered 451 for the MTA to retry', async () => {
    const { store, queue, markers, deps } = setup(open().store);
    const now = Date.now();
    const answered250 = intake('initembyitem00000000021', now - 60_000);
    const answered451 = intake('initembyitem00000000022', now - 60_000);
    for (const one of [answered250, answered451]) {
      await store.create(one, { headers: '', body: { blobKey: '00000000-0000-4000-8000-000000000000.eml' } }, now - 60_000);
    }
    await markers.putAccepted(acceptedMarker(answered250, '00000000-0000-4000-8000-000000000000.eml', '', now - 60_000));
    const reads: string[] = [];
    const counted = {
      putEnded: (marker: Parameters<IntakeMarkers['putEnded']>[0]) => markers.putEnded(marker),
      accepted: (id: string) => {
        reads.push(id);
        return markers.accepted(id);
      },
    };
    const notAccepted = new Set<string>();
    const sweep = () =>
      reconcileOnce({
        store,
        queue,
        clock: () => now,
        logger: deps.logger,
        observer: silentObserver,
        notices: { onOutcome: async () => undefined },
        ageMs: 10_000,
        attempts: 3,
        markers: counted,
        notAccepted,
      });
    await sweep();
    expect((await store.get(answered250.intakeId))?.state).toBe('queued');
    expect(await queue.getJobState(answered250.intakeId)).toBe('waiting');
    expect((await store.get(answered451.intakeId))?.state).toBe('received');
    expect(await queue.getJobState(answered451.intakeId)).toBe('unknown');
    expect(reads.sort()).toEqual([answered250.intakeId, answered451.intakeId]);
    await sweep(); // the raw store is not asked again about the one answered 451
    expect(reads).toHaveLength(2);
    await queue.close();
  });
});

describe.each(file)('housekeeping, one blob and one marker at a time ($name store)', (kind) => {
  const open = freshRawStores(kind);

  it('expires the other markers and deletes the other orphans past those it cannot judge, alerting once for each over two rounds', async () => {
    const rawStore = open().store;
    const { prefix, markers } = setup(rawStore);
    const now = Date.now();
    for (const id of ['initembyitem00000000031', 'initembyitem00000000033']) {
      await markers.putAccepted(acceptedMarker(intake(id), '00000000-0000-4000-8000-000000000000.eml', '', now));
      await markers.putEnded({ v: 1, intakeId: id, outcome: 'submitted', letterId: 'L-1', at: now });
    }
    await rawStore.putMarker('ended', 'initembyitem00000000032', NEWER_MARKER, 'replace');
    const orphanA = (await putBlob(rawStore, Buffer.from('Subject: a\r\n\r\na\r\n'))).blobKey;
    const unjudged = (await putBlob(rawStore, Buffer.from('Subject: b\r\n\r\nb\r\n'))).blobKey;
    const orphanC = (await putBlob(rawStore, Buffer.from('Subject: c\r\n\r\nc\r\n'))).blobKey;
    const alerts: string[] = [];
    const captured = capturedLogs();
    const housekeeping = startHousekeeping({
      store: rawStore,
      index: redisBlobIndex(redis, prefix),
      clock: () => now + 3 * 86_400_000,
      logger: captured.logger,
      orphanAfterMs: 3600_000,
      intervalMs: 3600_000,
      accepted: async (key) => {
        if (key === unjudged) throw new Error('accepted/ cannot be read');
        return false;
      },
      markers: {
        retentionMs: 86_400_000,
        mayExpire: async (id) => (await markers.ended(id))?.outcome === 'submitted',
      },
      alert: (code) => alerts.push(code),
    });
    try {
      const first = await housekeeping.runOnce();
      expect(first).toMatchObject({ orphans: 2, errors: 2 });
      expect(alerts).toEqual(['HousekeepingItemFailed', 'HousekeepingItemFailed']); // the blob, the marker
      expect(await housekeeping.runOnce()).toMatchObject({ orphans: 0, errors: 2 });
    } finally {
      await housekeeping.stop();
    }
    expect(await rawStore.readBuffer(orphanA)).toBeUndefined();
    expect(await rawStore.readBuffer(orphanC)).toBeUndefined();
    expect(await rawStore.readBuffer(unjudged)).toBeDefined();
    expect(await rawStore.getMarker('ended', 'initembyitem00000000031')).toBeUndefined();
    expect(await rawStore.getMarker('ended', 'initembyitem00000000033')).toBeUndefined();
    expect(await rawStore.getMarker('ended', 'initembyitem00000000032')).toBe(NEWER_MARKER);
    const failed = captured.events('raw_store.housekeeping_item_failed');
    expect(failed.map((l) => l.key).sort()).toEqual(
      ['ended/initembyitem00000000032', 'ended/initembyitem00000000032', unjudged, unjudged].sort(),
    );
    expect(alerts).toHaveLength(2); // not again in the second round
    expect(await redis.hkeys(blobIndexKeys(prefix).blobs)).toEqual([]);
  });
});
