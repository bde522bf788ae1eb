// The raw store failing under the gateway: while a message arrives (it hangs, or cannot be
// written) the client hears 451 4.3.0 within ENQUEUE_TIMEOUT_MS and nothing is promised; when
// a worker finds an intake's blob gone, the intake fails (replayable, the reason names the
// blob), and the sender is never told the message was rejected.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { type BlackHole, startBlackHole } from '../helpers/black-hole.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freshRawStores, RAW_STORE_KINDS, refusingMarkers } from '../helpers/raw-stores.js';
import { TEST_BUCKET } from '../helpers/s3-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const ENQUEUE_TIMEOUT_MS = 1500;
/** Time the listener may take beyond its bound: event-loop turns, draining the rest of DATA. */
const MARGIN_MS = 1500;

let hole: BlackHole | undefined;
afterAll(() => hole?.close());

const brokenStores: readonly (readonly [string, () => Promise<RawStore>])[] = [
  [
    'an S3 store that accepts connections and never answers',
    async () => {
      hole ??= await startBlackHole();
      return openRawStore({
        location: parseRawStoreUrl(`s3://${TEST_BUCKET}/raw`),
        timeoutMs: ENQUEUE_TIMEOUT_MS,
        s3PathStyle: true,
        s3Client: {
          endpoint: `http://127.0.0.1:${hole.port}`,
          region: 'us-east-1',
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          maxAttempts: 1,
        },
      });
    },
  ],
  [
    'a directory that cannot be written',
    async () => {
      const notADir = join(tmpdir(), `letter-intake-not-a-dir-${randomBytes(4).toString('hex')}`);
      writeFileSync(notADir, 'a file where the directory should be');
      return Promise.resolve(
        openRawStore({ location: parseRawStoreUrl(`file://${notADir}/raw`), timeoutMs: ENQUEUE_TIMEOUT_MS, s3PathStyle: false }),
      );
    },
  ],
];

describe.each(brokenStores)('%s while a message arrives', (_what, broken) => {
  let gateway: TestGateway;
  let store: RawStore;
  beforeAll(async () => {
    store = await broken();
    gateway = await startTestGateway({ rawStore: store, env: { ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) } });
  });
  afterAll(async () => {
    await gateway.close();
    store.close();
  });

  it.each([
    ['a small message (stored at the end of DATA)', 0],
    ['a large message (stored while it arrives)', 3 * 1024 * 1024],
  ])('answers %s 451 4.3.0 within the bound, promises nothing and names no internal detail', async (_size, pdfBytes) => {
    const pdf = pdfBytes === 0 ? undefined : Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(pdfBytes)]);
    const raw = await signedLetter({ title: `store away, ${pdfBytes} bytes`, ...(pdf === undefined ? {} : { pdf }) });
    const started = Date.now();
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.text).toMatch(/^451 4\.3\.0 /);
    expect(Date.now() - started).toBeLessThan(ENQUEUE_TIMEOUT_MS + MARGIN_MS);
    // a fixed sentence with a reference, nothing of the store's own words; the detail is in the log under that reference
    const ref = /^451 4\.3\.0 temporarily unable to store the message \(ref (\S+)\)$/.exec(replies.data?.text ?? '')?.[1];
    expect(ref).toBeDefined();
    const logged = gateway.logs.find((l) => l.event === 'smtp.refused' && (l.intakeId === ref || l.smtpSession === ref) && l.code === 451);
    expect(logged?.err).toMatchObject({ code: 'StorageUnavailable', message: expect.stringMatching(/storage|raw store/) });
    expect(await gateway.redis.keys(`${gateway.prefix}:record:*`)).toEqual([]);
    expect(await gateway.queue.getJobCountByTypes('waiting', 'active', 'delayed', 'completed', 'failed')).toBe(0);
  });
});

describe.each(RAW_STORE_KINDS)('a $name store that takes the blob and refuses the accepted/ marker', (kind) => {
  const open = freshRawStores(kind);
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('answers the message 451 4.3.0, never 250, and writes no accepted/ marker', async () => {
    const rawStore = open().store;
    gateway = await startTestGateway({ rawStore: refusingMarkers(rawStore, 'accepted') });
    const title = `accepted marker refused (${kind.name})`;
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title }),
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.code).toBe(451);
    expect(replies.data?.text).toMatch(/^451 4\.3\.0 temporarily unable to store the message \(ref \S+\)$/);
    const refused = gateway.logs.find((l) => l.event === 'smtp.refused' && l.code === 451);
    expect(refused?.err).toMatchObject({ code: 'StorageUnavailable' });
    // Redis took the record and the job: the marker, the last step before 250, was the one refused.
    expect((await gateway.store.get(String(refused?.intakeId)))?.state).toBe('queued');
    const markers: string[] = [];
    for await (const marker of rawStore.listMarkers('accepted')) markers.push(marker.id);
    expect(markers).toEqual([]);
  });
});

describe.each(RAW_STORE_KINDS)("a worker that finds the intake's blob gone from the $name store", (kind) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    await kind.setup();
    gateway = await startTestGateway({ worker: true, rawStore: kind });
  });
  afterAll(async () => {
    await gateway.close();
    await kind.teardown();
  });

  it('fails the intake as replayable with a reason naming the blob, and never rejects it', async () => {
    await gateway.queue.pause();
    const raw = await signedLetter({ title: `blob gone (${kind.name})` });
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    const intakeId = intakeIdOf(replies.data?.text ?? '');
    const rawKey = (await gateway.store.get(intakeId))?.rawKey ?? '';
    expect(rawKey).not.toBe('');
    await gateway.rawStore.delete(rawKey);
    await gateway.queue.resume();
    const record = await gateway.settled(intakeId);
    expect(record.state).toBe('failed');
    expect(record.errorCode).toBe('RawMessageMissing');
    expect(record.reason).toContain(rawKey);
    expect(record.reasonCode).toBeUndefined();
    expect(gateway.sandbox?.store.allLetters().filter((l) => l.title === `blob gone (${kind.name})`)).toEqual([]);
  });
});
