// Redis stopped in the middle of a run: the listener answers 451 4.3.0 within its bound (never
// 250, never a hang), stores nothing half-way, and accepts again on its own once Redis returns.
// "Nothing half-way" as docs/design.md §10 and §21 put it: the blob is committed before Redis is
// written, so a 451 for a Redis that is away leaves a committed blob that no record and no
// `accepted/` marker names, which the orphan sweep deletes; nothing else of it is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisBlobIndex } from '../../src/intake/blob-index.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { sweepOrphans } from '../../src/raw-store/sweep.js';
import { acceptedBlobCheck, intakeIdOfBlob } from '../../src/recover/blob-claims.js';
import { PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { blobsIn } from '../helpers/raw-stores.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const ENQUEUE_TIMEOUT_MS = 1500;
let redis: RedisServer;
let gateway: TestGateway;

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await startTestGateway({ env: { REDIS_URL: redis.url, ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) } });
});
afterAll(async () => {
  await gateway.close();
  await redis.destroy();
});

const deliver = async (title: string, raw?: Buffer) =>
  (await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: raw ?? (await signedLetter({ title })) }))
    .data;
const committed = async () => (await blobsIn(gateway.rawStore)).committed.sort();

/** One round of the worker's orphan sweep, with its `accepted/` check, as if the blobs were past RAW_STORE_ORPHAN_AFTER_MS. */
function sweepPastOrphanBound() {
  const markers = new IntakeMarkers(gateway.rawStore);
  const index = redisBlobIndex(gateway.redis, gateway.prefix);
  return sweepOrphans({
    store: gateway.rawStore,
    referenced: index.referenced,
    forget: index.forget,
    clock: () => Date.now() + 2 * gateway.config.rawStore.orphanAfterMs,
    orphanAfterMs: gateway.config.rawStore.orphanAfterMs,
    accepted: acceptedBlobCheck({
      store: gateway.store,
      queue: gateway.queue,
      rawStore: gateway.rawStore,
      markers,
      clock: Date.now,
      attempts: 3,
      logger: createLogger({ level: 'silent' }),
      ledger: new NoticeLedger(gateway.redis, gateway.prefix),
      noticeLifetimeMs: 3_600_000,
    }),
  });
}

describe('a Redis outage', () => {
  it('is answered 451 4.3.0 within the bound while Redis is down, and 250 again after it returns', async () => {
    expect((await deliver('before the outage'))?.code).toBe(250);

    await redis.kill();
    const blobsBefore = await committed();
    const refusedRaw = await signedLetter({ title: 'during the outage' });
    const started = Date.now();
    const during = await deliver('during the outage', refusedRaw);
    expect(during?.text).toMatch(/^451 4\.3\.0 /);
    expect(Date.now() - started).toBeLessThan(ENQUEUE_TIMEOUT_MS + 3000);
    // The store committed the message before Redis refused: one more blob, the bytes as sent, and
    // no `accepted/` for it (the marker that would make the housekeeping recover it).
    const refusedBlobs = (await committed()).filter((key) => !blobsBefore.includes(key));
    expect(refusedBlobs).toHaveLength(1);
    const refusedBlob = refusedBlobs[0] ?? 'none';
    expect((await gateway.rawStore.readBuffer(refusedBlob))?.equals(refusedRaw)).toBe(true);
    const refusedId = intakeIdOfBlob(refusedRaw) ?? 'unidentified';
    expect(await new IntakeMarkers(gateway.rawStore).accepted(refusedId)).toBeUndefined();

    await redis.restart();
    let after = await deliver('after the outage');
    for (let i = 0; i < 40 && after?.code !== 250; i += 1) {
      await new Promise((r) => setTimeout(r, 250)); // the sender's MTA retrying
      after = await deliver('after the outage');
    }
    expect(after?.text).toMatch(/^250 2\.0\.0 queued as /);
    const records = await gateway.store.list('queued', 1000);
    expect(records.map((r) => r.subject).sort()).toEqual(['after the outage', 'before the outage']);
    expect(await gateway.store.get(refusedId)).toBeUndefined();

    // The refused message's blob is an orphan, nothing more: the sweep deletes it (and any copy a
    // retry refused while Redis came back), and keeps exactly the blobs the two intakes point at.
    await sweepPastOrphanBound();
    expect(await committed()).toEqual(records.map((r) => r.rawKey).sort());
    expect(await gateway.store.get(refusedId)).toBeUndefined();
  });

  it('logs the lost connection at warn with the error, not once per reconnect attempt, and its recovery', async () => {
    const outage = (event: string) => gateway.logs.filter((l) => l.event === event);
    const errorsBefore = outage('smtp.redis_error').length;
    await redis.kill();
    for (let i = 0; i < 100 && outage('smtp.redis_error').length === errorsBefore; i += 1) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 3000)); // ioredis keeps retrying meanwhile
    const logged = outage('smtp.redis_error').slice(errorsBefore);
    expect(logged.map((l) => l.level)).toEqual([40]);
    expect(JSON.stringify(logged[0]?.err)).toMatch(/ECONNREFUSED|Connection is closed|ECONNRESET/);

    await redis.restart();
    for (let i = 0; i < 100 && outage('smtp.redis_error_recovered').length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(outage('smtp.redis_error_recovered').at(-1)?.failures).toBeGreaterThan(0);
  });
});
