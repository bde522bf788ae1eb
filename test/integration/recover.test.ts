// Redis loses the intake records; the raw store's markers bring back every intake answered 250,
// on every kind of store: queued again, ended as it ended, failed as it failed, never twice.
import { describe, expect, it } from 'vitest';
import { acceptIntake } from '../../src/intake/accept.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { silentObserver } from '../../src/intake/observer.js';
import { createIntakeQueue } from '../../src/intake/queue.js';
import type { NewIntake } from '../../src/intake/record.js';
import { replayIntake } from '../../src/intake/replay.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { sweepOrphans } from '../../src/raw-store/sweep.js';
import { acceptedBlobCheck, intakeIdOfBlob } from '../../src/recover/blob-claims.js';
import { type RecoverDeps, recoverIntakes } from '../../src/recover/recover.js';
import { reconcileOnce } from '../../src/worker/reconciler.js';
import { freshRawStores, putBlob, RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { dropPrefix, redisPerFile } from '../helpers/redis.js';

const { redis, prefix: freshPrefix } = redisPerFile();
const logger = createLogger({ level: 'silent' });
/** How long a notice is worth sending, as these tests configure it. */
const NOTICE_LIFETIME_MS = 3_600_000;

const intake = (intakeId: string): NewIntake => ({
  intakeId,
  receivedAt: 1_700_000_000_000,
  envelopeFrom: 'b@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '192.0.2.7',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Invoice 7',
  messageId: `<${intakeId}@acme.example>`,
  sizeBytes: 17,
  contentDigest: 'ab'.repeat(32),
  contentDigestScheme: 2,
  auth: { spf: 'pass', dkim: 'pass' },
});

function setup(rawStore: RawStore) {
  const prefix = freshPrefix();
  const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  const queue = createIntakeQueue(redis, prefix);
  const markers = new IntakeMarkers(rawStore);
  /** The notices recover queued again: (intake id, outcome). */
  const noticesAsked: (readonly [string, string])[] = [];
  const notices = { onOutcome: async (id: string, kind: string) => void noticesAsked.push([id, kind]) };
  const ledger = new NoticeLedger(redis, prefix);
  const deps: RecoverDeps = {
    store,
    queue,
    rawStore,
    markers,
    clock: Date.now,
    attempts: 3,
    logger,
    notices,
    ledger,
    noticeLifetimeMs: NOTICE_LIFETIME_MS,
  };
  const accept = async (id: string, bytes = 'Subject: x\r\n\r\nletter\r\n') =>
    acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs: 5000, markers }, intake(id), {
      headers: 'Received-SPF: pass\r\n',
      body: () => putBlob(rawStore, Buffer.from(bytes)),
    });
  const loseRedis = () => dropPrefix(redis, prefix);
  return { prefix, store, queue, markers, deps, accept, loseRedis, noticesAsked };
}

describe.each(RAW_STORE_KINDS)('recover with the $name raw store', (kind) => {
  const open = freshRawStores(kind);

  it('queues again an intake answered 250 whose record Redis lost, once however often it runs', async () => {
    const { store, queue, deps, accept, loseRedis } = setup(open().store);
    await accept('inrecoverqueued000000001');
    await loseRedis();
    expect(await store.get('inrecoverqueued000000001')).toBeUndefined();

    const first = await recoverIntakes(deps);
    const record = await store.get('inrecoverqueued000000001');
    expect(record?.state).toBe('queued');
    expect(record?.clientIp).toBe('192.0.2.7');
    expect(record?.contentDigestScheme).toBe(2);
    expect(record?.rawHeaders).toBe('Received-SPF: pass\r\n');
    expect(await queue.getJob('inrecoverqueued000000001')).toBeDefined();
    expect(first.counts.queue).toBe(1);

    const again = await recoverIntakes(deps);
    expect(again.counts).toMatchObject({ keep: 1, queue: 0 });
    await queue.close();
  });

  it('carries the letter from letter/ into the queued record', async () => {
    const { store, queue, markers, deps, accept, loseRedis } = setup(open().store);
    await accept('inrecoverletter000000001');
    await markers.putLetter({ v: 1, intakeId: 'inrecoverletter000000001', letterId: 'L-77', draftStatus: 'Draft', at: 5 });
    await loseRedis();
    await recoverIntakes(deps);
    const record = await store.get('inrecoverletter000000001');
    expect(record).toMatchObject({ state: 'queued', letterId: 'L-77', draftStatus: 'Draft' });
    await queue.close();
  });

  it('restores an intake that ended with a letter as submitted, with no job', async () => {
    const { store, queue, markers, deps, accept, loseRedis } = setup(open().store);
    await accept('inrecoverended0000000001');
    await markers.putEnded({ v: 1, intakeId: 'inrecoverended0000000001', outcome: 'submitted', letterId: 'L-9', senderId: 's1', at: 5 });
    await loseRedis();
    const report = await recoverIntakes(deps);
    expect(report.counts['restore-ended']).toBe(1);
    expect(await store.get('inrecoverended0000000001')).toMatchObject({ state: 'submitted', letterId: 'L-9' });
    expect(await queue.getJob('inrecoverended0000000001')).toBeUndefined();
    await queue.close();
  });

  it('restores a dry run as simulated, with what would have been sent, and no job', async () => {
    const { store, queue, markers, deps, accept, loseRedis, noticesAsked } = setup(open().store);
    await accept('inrecoversimulated000001');
    const simulatedLetter = { title: 'Invoice 7', description: 'text', pdfs: [{ fileName: 'a.pdf', sha256: 'cd'.repeat(32) }] };
    await markers.putEnded({
      v: 1,
      intakeId: 'inrecoversimulated000001',
      outcome: 'simulated',
      senderId: 's1',
      simulatedLetter,
      at: Date.now(),
    });
    await loseRedis();
    const report = await recoverIntakes(deps);
    expect(report.counts['restore-ended']).toBe(1);
    expect(await store.get('inrecoversimulated000001')).toMatchObject({ state: 'simulated', simulatedLetter });
    expect(await queue.getJob('inrecoversimulated000001')).toBeUndefined();
    expect(noticesAsked).toEqual([['inrecoversimulated000001', 'simulated']]);
    await queue.close();
  });

  it('never reopens a failed intake: it comes back failed, with no job', async () => {
    const { store, queue, markers, deps, accept, loseRedis } = setup(open().store);
    await accept('inrecoverfailed000000001');
    await markers.putEnded({ v: 1, intakeId: 'inrecoverfailed000000001', outcome: 'failed', errorCode: 'InvalidData', at: 5 });
    await loseRedis();
    await recoverIntakes(deps);
    expect(await store.get('inrecoverfailed000000001')).toMatchObject({ state: 'failed', errorCode: 'InvalidData' });
    expect(await queue.getJob('inrecoverfailed000000001')).toBeUndefined();
    await queue.close();
  });

  it('has a replay clear the failed end, so a loss during the re-run queues the intake again', async () => {
    const { store, queue, markers, deps, accept, loseRedis } = setup(open().store);
    await accept('inrecoverreplayed0000001');
    await store.transition('inrecoverreplayed0000001', ['queued'], 'failed', Date.now(), { errorCode: 'InvalidCredentials' });
    await markers.putEnded({ v: 1, intakeId: 'inrecoverreplayed0000001', outcome: 'failed', errorCode: 'InvalidCredentials', at: 5 });
    const replayed = await replayIntake({ store, queue, clock: Date.now, attempts: 3, markers }, 'inrecoverreplayed0000001');
    expect(replayed).toEqual({ ok: true });
    expect(await markers.ended('inrecoverreplayed0000001')).toBeUndefined();
    await loseRedis();
    await recoverIntakes(deps);
    expect((await store.get('inrecoverreplayed0000001'))?.state).toBe('queued');
    await queue.close();
  });

  it('records failed RawMessageMissing for an accepted intake whose blob is gone, and says which', async () => {
    const rawStore = open().store;
    const { store, queue, deps, accept, loseRedis } = setup(rawStore);
    await accept('inrecovermissing00000001');
    const blobKey = (await store.get('inrecovermissing00000001'))?.rawKey ?? '';
    await rawStore.delete(blobKey);
    await loseRedis();
    const report = await recoverIntakes(deps);
    expect(report.missing).toEqual(['inrecovermissing00000001']);
    expect(await store.get('inrecovermissing00000001')).toMatchObject({ state: 'failed', errorCode: 'RawMessageMissing' });
    await queue.close();
  });

  it('has the sweep keep and recover a blob accepted/ names, and delete one answered only 451', async () => {
    const rawStore = open().store;
    const { store, queue, markers, deps, loseRedis } = setup(rawStore);
    const answered250 = Buffer.from('From: a@acme.example\r\nSubject: kept\r\n\r\nletter one\r\n');
    const answered451 = Buffer.from('From: a@acme.example\r\nSubject: gone\r\n\r\nletter two\r\n');
    const kept = await putBlob(rawStore, answered250);
    const orphan = await putBlob(rawStore, answered451);
    const id = intakeIdOfBlob(answered250) ?? 'unidentified';
    const { acceptedMarker } = await import('../../src/intake/markers.js');
    await markers.putAccepted(acceptedMarker(intake(id), kept.blobKey, '', Date.now()));
    await loseRedis();

    const result = await sweepOrphans({
      store: rawStore,
      referenced: () => Promise.resolve(new Set()),
      forget: () => Promise.resolve(),
      clock: () => Date.now() + 7_200_000,
      orphanAfterMs: 3_600_000,
      accepted: acceptedBlobCheck(deps),
    });
    expect(result).toEqual({ deleted: 1, kept: 1 });
    expect(await rawStore.readBuffer(orphan.blobKey)).toBeUndefined();
    expect(await rawStore.readBuffer(kept.blobKey)).toEqual(answered250);
    expect((await store.get(id))?.state).toBe('queued');
    await queue.close();
  });

  it('never reopens an intake the unfinished-intake sweep failed: the sweep writes its failed end', async () => {
    const { store, queue, markers, deps, accept, loseRedis } = setup(open().store);
    const id = 'inrecoverswept0000000001';
    await accept(id);
    // A worker took it and its job is gone: the sweep fails it as JobLost.
    await store.transition(id, ['queued'], 'processing', Date.now());
    await queue.remove(id);
    const later = Date.now() + 60_000;
    const notices = { onOutcome: () => Promise.resolve(undefined) };
    const sweepDeps = { store, queue, markers, logger, observer: silentObserver, notices, ageMs: 10_000, attempts: 3 };
    expect(await reconcileOnce({ ...sweepDeps, clock: () => later })).toEqual([id]);
    expect(await markers.ended(id)).toMatchObject({ intakeId: id, outcome: 'failed', errorCode: 'JobLost' });

    await loseRedis();
    const report = await recoverIntakes(deps);
    expect(report.counts).toMatchObject({ 'restore-failed': 1, queue: 0 });
    expect(await store.get(id)).toMatchObject({ state: 'failed', errorCode: 'JobLost' });
    expect(await queue.getJob(id)).toBeUndefined();
    await queue.close();
  });

  it('queues again the notice of an intake that ended within the notice lifetime', async () => {
    const { store, queue, markers, deps, accept, loseRedis, noticesAsked } = setup(open().store);
    const id = 'inrecovernoticerecent001';
    await accept(id);
    const endedAt = Date.now() - NOTICE_LIFETIME_MS / 2;
    await markers.putEnded({ v: 1, intakeId: id, outcome: 'submitted', letterId: 'L-1', senderId: 's1', notice: 'queued', at: endedAt });
    await loseRedis();
    await recoverIntakes(deps);
    expect(noticesAsked).toEqual([[id, 'submitted']]);
    expect((await store.get(id))?.state).toBe('submitted');
    await queue.close();
  });

  it('does not send again the notice of an intake that ended before the notice lifetime, and records it decided', async () => {
    const { store, queue, markers, deps, accept, loseRedis, noticesAsked } = setup(open().store);
    const submitted = 'inrecovernoticeold000001';
    const failed = 'inrecovernoticeold000002';
    await accept(submitted);
    await accept(failed);
    const endedAt = Date.now() - NOTICE_LIFETIME_MS - 60_000;
    await markers.putEnded({
      v: 1,
      intakeId: submitted,
      outcome: 'submitted',
      letterId: 'L-2',
      senderId: 's1',
      notice: 'queued',
      at: endedAt,
    });
    await markers.putEnded({ v: 1, intakeId: failed, outcome: 'failed', errorCode: 'InvalidData', notice: 'queued', at: endedAt });
    await loseRedis();
    await recoverIntakes(deps);
    expect(noticesAsked).toEqual([]);
    expect((await store.get(submitted))?.notices?.submitted).toMatchObject({
      state: 'unconfirmed',
      reason: expect.stringContaining('recover'),
    });
    // The failed one's entry keeps the owed-notice sweep from sending "not created" again.
    expect((await store.get(failed))?.notices?.failed).toMatchObject({ state: 'unconfirmed' });
    await queue.close();
  });
});
