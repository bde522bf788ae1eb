// Housekeeping deletes an ended intake's markers while `recover` reads them: recover must take a
// marker that vanishes under it for what it is (the intake ended and its markers expired), never
// for an intake that never ended: that would fail it RawMessageMissing for nothing, or, with its
// blob still there, queue it again and make a second letter.
import { afterAll, describe, expect, it } from 'vitest';
import { acceptIntake } from '../../src/intake/accept.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { createIntakeQueue } from '../../src/intake/queue.js';
import type { NewIntake } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import type { MarkerKind, RawStore } from '../../src/raw-store/raw-store.js';
import { deleteExpiredMarkers } from '../../src/raw-store/sweep.js';
import { type RecoverDeps, recoverIntakes } from '../../src/recover/recover.js';
import { freshRawStores, putBlob, RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const redis = connectTestRedis();
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await dropPrefix(redis, prefix);
  redis.disconnect();
});

const intake = (intakeId: string): NewIntake => ({
  intakeId,
  receivedAt: Date.now(),
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

/** The store as recover sees it: `housekeeping` runs to its end just before recover's first read of `kind`. */
function racedStore(store: RawStore, kind: MarkerKind, housekeeping: () => Promise<unknown>): RawStore {
  let ran = false;
  return {
    ...store,
    async getMarker(asked, id) {
      if (asked === kind && !ran) {
        ran = true;
        await housekeeping();
      }
      return store.getMarker(asked, id);
    },
  };
}

const file = RAW_STORE_KINDS.filter((kind) => kind.name === 'file');

describe.each(file)('recover while housekeeping expires the markers ($name store)', (kind) => {
  const open = freshRawStores(kind);

  it.each([
    ['its blob already gone (raw retention ended first)', false],
    ['its blob still there', true],
  ])('leaves an ended intake ended, %s: no RawMessageMissing, no second run', async (_what, blobKept) => {
    const rawStore = open().store;
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
    const queue = createIntakeQueue(redis, prefix);
    const markers = new IntakeMarkers(rawStore);
    const id = blobKept ? 'inretentionrace000000002' : 'inretentionrace000000001';
    await acceptIntake({ store, queue, clock: Date.now, attempts: 3, timeoutMs: 5000, markers }, intake(id), {
      headers: '',
      body: () => putBlob(rawStore, Buffer.from(`Subject: ${id}\r\n\r\nletter\r\n`)),
    });
    const blobKey = (await store.get(id))?.rawKey ?? '';
    await markers.putLetter({ v: 1, intakeId: id, letterId: 'L-1', draftStatus: 'Draft', at: 1 });
    await markers.putEnded({ v: 1, intakeId: id, outcome: 'submitted', letterId: 'L-1', at: 1 });
    if (!blobKept) await rawStore.delete(blobKey);
    await dropPrefix(redis, prefix); // Redis lost the records (and a record retention ending would do the same)

    const alerts: string[] = [];
    const housekeeping = () =>
      deleteExpiredMarkers({
        store: rawStore,
        clock: () => Date.now() + 2 * 86_400_000,
        retentionMs: 86_400_000,
        mayExpire: async () => true,
      });
    const deps: RecoverDeps = {
      store,
      queue,
      rawStore: racedStore(rawStore, 'ended', housekeeping),
      markers: new IntakeMarkers(racedStore(rawStore, 'ended', housekeeping)),
      clock: Date.now,
      attempts: 3,
      logger: createLogger({ level: 'silent' }),
      ledger: new NoticeLedger(redis, prefix),
      noticeLifetimeMs: 3_600_000,
      observer: { operatorAlert: (code) => alerts.push(code) },
    };
    const report = await recoverIntakes(deps);
    expect((await store.get(id))?.state).toBeUndefined();
    expect(await queue.getJobState(id)).toBe('unknown');
    expect(report.missing).toEqual([]);
    expect(report.counts).toMatchObject({ queue: 0, 'fail-missing': 0, expired: 1 });
    expect(alerts).toEqual([]);
    expect(await rawStore.getMarker('accepted', id)).toBeUndefined(); // the housekeeping did run
    await queue.close();
  });
});
