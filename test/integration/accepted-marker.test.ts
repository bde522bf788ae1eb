// `accepted/` names the blob the intake's record points at, however the deliveries went: a 451
// after Redis took the record, then the MTA's retry, leaves the retry's copy a plain orphan that
// the sweep deletes without an alert. A 451 answered before the marker keeps it unwritten.
import { describe, expect, it } from 'vitest';
import { IntakeError } from '../../src/errors.js';
import { acceptIntake } from '../../src/intake/accept.js';
import { redisBlobIndex } from '../../src/intake/blob-index.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { createIntakeQueue } from '../../src/intake/queue.js';
import type { IntakeState, IntakeUpdate, NewIntake } from '../../src/intake/record.js';
import { IntakeStore, type TransitionGuard, type TransitionResult } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { sweepOrphans } from '../../src/raw-store/sweep.js';
import { acceptedBlobCheck, intakeIdOfBlob } from '../../src/recover/blob-claims.js';
import type { RecoverDeps } from '../../src/recover/recover.js';
import { type AckVerdict, judgeAcknowledgement, type ReplicaAck } from '../../src/redis/replica-ack.js';
import { blobsIn, freshRawStores, putBlob, RAW_STORE_KINDS, refusingMarkers } from '../helpers/raw-stores.js';
import { redisPerFile } from '../helpers/redis.js';

const { redis, prefix: freshPrefix } = redisPerFile();
const logger = createLogger({ level: 'silent' });
const ORPHAN_AFTER_MS = 3_600_000;

const message = Buffer.from('From: letters@acme.example\r\nSubject: Invoice 7\r\n\r\nletter\r\n');
const intakeId = intakeIdOfBlob(message) ?? 'unidentified';

const intake: NewIntake = {
  intakeId,
  receivedAt: 1_700_000_000_000,
  envelopeFrom: 'b@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '192.0.2.7',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Invoice 7',
  messageId: '<invoice-7@acme.example>',
  sizeBytes: message.length,
  contentDigest: 'ab'.repeat(32),
  contentDigestScheme: 2,
  auth: { spf: 'pass', dkim: 'pass' },
};

/** Replicas that answer each session in turn with the verdicts given, then acknowledge. */
function replicasAnswering(...verdicts: AckVerdict[]): ReplicaAck {
  return {
    wanted: 1,
    begin: () => {
      const verdict = verdicts.shift() ?? judgeAcknowledgement(1, 1, true);
      return { acknowledge: () => Promise.resolve(verdict) };
    },
  };
}
const BEHIND = judgeAcknowledgement(0, 1, true);

/**
 * A store whose moves to `queued` wait, when `hold` is set, until the test lets them go
 * (Redis answering past the bound); `landed` resolves once such a held move has been written.
 */
class HeldQueueingStore extends IntakeStore {
  hold: Promise<void> | undefined;
  #landed = Promise.withResolvers<void>();
  readonly landed = this.#landed.promise;
  override async transition(
    id: string,
    from: readonly IntakeState[],
    to: IntakeState,
    now: number,
    update?: IntakeUpdate,
    guard?: TransitionGuard,
  ): Promise<TransitionResult> {
    if (to !== 'queued' || this.hold === undefined) return super.transition(id, from, to, now, update, guard);
    await this.hold;
    const result = await super.transition(id, from, to, now, update, guard);
    this.#landed.resolve();
    return result;
  }
}

function setup(rawStore: RawStore) {
  const prefix = freshPrefix();
  const store = new HeldQueueingStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
  const queue = createIntakeQueue(redis, prefix);
  const markers = new IntakeMarkers(rawStore);
  const alerts: string[] = [];
  const deps: RecoverDeps = {
    store,
    queue,
    rawStore,
    markers,
    clock: Date.now,
    attempts: 3,
    logger,
    ledger: new NoticeLedger(redis, prefix),
    noticeLifetimeMs: 3_600_000,
    observer: { operatorAlert: (code) => alerts.push(code) },
  };
  const accept = (replicas?: ReplicaAck, timeoutMs = 5000) =>
    acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs, markers, replicas }, intake, {
      headers: 'Received-SPF: pass\r\n',
      body: () => putBlob(rawStore, message),
    });
  const index = redisBlobIndex(redis, prefix);
  const sweep = () =>
    sweepOrphans({
      store: rawStore,
      referenced: index.referenced,
      forget: index.forget,
      clock: () => Date.now() + 2 * ORPHAN_AFTER_MS,
      orphanAfterMs: ORPHAN_AFTER_MS,
      accepted: acceptedBlobCheck(deps),
    });
  return { store, queue, markers, alerts, accept, sweep };
}

const fileKind = RAW_STORE_KINDS.filter((kind) => kind.name === 'file');

describe.each(fileKind)('the accepted marker with the $name raw store', (kind) => {
  const open = freshRawStores(kind);

  it('names the first copy after a 451 ReplicasBehind and a retry answered 250, and the sweep deletes the retry copy without an alert', async () => {
    const rawStore = open().store;
    const { store, queue, markers, alerts, accept, sweep } = setup(rawStore);
    const replicas = replicasAnswering(BEHIND);

    await expect(accept(replicas)).rejects.toMatchObject({ code: 'ReplicasBehind' });
    expect(await markers.accepted(intakeId)).toBeUndefined();
    const first = (await store.get(intakeId))?.rawKey;
    expect(first).toBeDefined();

    expect(await accept(replicas)).toEqual({ intakeId, duplicate: true });
    const { committed } = await blobsIn(rawStore);
    expect(committed).toHaveLength(2);
    const retryCopy = committed.find((key) => key !== first);
    expect((await store.get(intakeId))?.rawKey).toBe(first);
    expect((await markers.accepted(intakeId))?.blobKey).toBe(first);

    expect(await sweep()).toEqual({ deleted: 1, kept: 1 });
    expect(alerts).toEqual([]);
    expect(await rawStore.readBuffer(retryCopy ?? 'none')).toBeUndefined();
    expect(await rawStore.readBuffer(first ?? 'none')).toEqual(message);
    await queue.close();
  });

  it('has the sweep delete, without an alert, a copy accepted/ names when the live record points at another, and point the marker at that one', async () => {
    const rawStore = open().store;
    const { store, queue, markers, alerts, accept, sweep } = setup(rawStore);
    // Answered 250, then failed; a re-delivery repoints the record at its own copy and is answered
    // 451 ReplicasBehind before its marker: accepted/ still names the first copy.
    expect(await accept()).toEqual({ intakeId, duplicate: false });
    const first = (await store.get(intakeId))?.rawKey;
    expect((await markers.accepted(intakeId))?.blobKey).toBe(first);
    await store.transition(intakeId, ['queued'], 'failed', Date.now(), { errorCode: 'InvalidCredentials' });
    await expect(accept(replicasAnswering(BEHIND))).rejects.toMatchObject({ code: 'ReplicasBehind' });
    const second = (await store.get(intakeId))?.rawKey;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect((await markers.accepted(intakeId))?.blobKey).toBe(first);

    expect(await sweep()).toEqual({ deleted: 1, kept: 1 });
    expect(alerts).toEqual([]);
    expect(await rawStore.readBuffer(first ?? 'none')).toBeUndefined();
    expect(await rawStore.readBuffer(second ?? 'none')).toEqual(message);
    expect((await markers.accepted(intakeId))?.blobKey).toBe(second);
    await queue.close();
  });

  it('answers 451, not 250, when the raw store cannot write the accepted/ marker', async () => {
    const rawStore = open().store;
    const { store, queue } = setup(rawStore);
    const markers = new IntakeMarkers(refusingMarkers(rawStore, 'accepted'));
    const answered = acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs: 5000, markers }, intake, {
      headers: 'Received-SPF: pass\r\n',
      body: () => putBlob(rawStore, message),
    });
    await expect(answered).rejects.toBeInstanceOf(IntakeError);
    await expect(answered).rejects.toMatchObject({ code: 'StorageUnavailable', smtp: { code: 451 } });
    expect((await store.get(intakeId))?.state).toBe('queued'); // the marker was the only step that failed
    expect(await markers.accepted(intakeId)).toBeUndefined();
    await queue.close();
  });

  it('writes no accepted/ for a message answered 451 whose record and job landed after the bound', async () => {
    const rawStore = open().store;
    const { store, queue } = setup(rawStore);
    const release = Promise.withResolvers<void>();
    store.hold = release.promise;
    const puts: string[] = [];
    const markers = new IntakeMarkers(markerWritesSeen(rawStore, puts));
    const answered = acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs: 100, markers }, intake, {
      headers: 'Received-SPF: pass\r\n',
      body: () => putBlob(rawStore, message),
    });
    await expect(answered).rejects.toBeInstanceOf(IntakeError);
    await expect(answered).rejects.toMatchObject({ code: 'StorageUnavailable' });
    expect((await store.get(intakeId))?.state).toBe('received'); // the 451 came first
    // Redis answers after the 451: the record reaches `queued`, and what follows it (the
    // replicas, the marker) runs without waiting on anything outside the process, so one turn
    // of the event loop after the write is past any marker write it would start.
    release.resolve();
    await store.landed;
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.get(intakeId))?.state).toBe('queued');
    expect(puts).toEqual([]);
    expect(await markers.accepted(intakeId)).toBeUndefined();
    await queue.close();
  });
});

/** The raw store, noting the kind of every marker write begun. */
function markerWritesSeen(inner: RawStore, puts: string[]): RawStore {
  return {
    ...inner,
    putMarker(kind, id, body, mode) {
      puts.push(kind);
      return inner.putMarker(kind, id, body, mode);
    },
  };
}
