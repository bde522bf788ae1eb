// A store that is down or hangs fails every operation within the store's bound, as
// StorageUnavailable (the listener's 451 4.3.0, the worker's retry), never hangs a session.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { freePort } from '../../src/runtime/redis.js';
import { startBlackHole } from '../helpers/black-hole.js';
import { TEST_BUCKET } from '../helpers/s3-server.js';

const TIMEOUT_MS = 400;
/** Room for the event loop under load; far below what an unbounded wait would take. */
const SLACK_MS = 1500;

function s3StoreAt(port: number) {
  return openRawStore({
    location: parseRawStoreUrl(`s3://${TEST_BUCKET}/raw`),
    timeoutMs: TIMEOUT_MS,
    s3PathStyle: true,
    s3Client: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 1,
    },
  });
}

async function failsInTime(work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await expect(work()).rejects.toMatchObject({ code: 'StorageUnavailable' });
  expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
}

describe.each([
  ['nothing listens on its port', async () => ({ port: await freePort(), close: () => Promise.resolve() })],
  ['it accepts connections and never answers', startBlackHole],
])('an S3 store where %s', (_what, start) => {
  let endpoint: { port: number; close: () => Promise<void> };
  beforeAll(async () => {
    endpoint = await start();
  });
  afterAll(() => endpoint.close());

  it('fails its check within the bound', async () => {
    const store = s3StoreAt(endpoint.port);
    await failsInTime(() => store.check());
    store.close();
  });

  it('fails a commit within the bound', async () => {
    const store = s3StoreAt(endpoint.port);
    const write = store.begin();
    await failsInTime(async () => {
      await write.write(randomBytes(64 * 1024));
      await write.commit();
    });
    await write.abort();
    store.close();
  });

  it('fails a write of a large message within the bound (the upload stops taking bytes)', async () => {
    const store = s3StoreAt(endpoint.port);
    const write = store.begin();
    const chunk = randomBytes(64 * 1024);
    await failsInTime(async () => {
      for (let i = 0; i < 14 * 16; i += 1) await write.write(chunk);
      await write.commit();
    });
    await write.abort();
    store.close();
  });

  it('fails a read and a delete within the bound', async () => {
    const store = s3StoreAt(endpoint.port);
    await failsInTime(() => store.readBuffer('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml'));
    await failsInTime(() => store.delete('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml'));
    store.close();
  });
});
