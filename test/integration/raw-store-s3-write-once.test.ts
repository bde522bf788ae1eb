// Write-once markers on an S3 store: the store's conditional put (If-None-Match: *) is asked
// for, not assumed, and a failed question is asked again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { type FlakyProxy, startFlakyProxy } from '../helpers/flaky-proxy.js';
import { randomS3Url, type S3Server, startS3Server } from '../helpers/s3-server.js';

let s3: S3Server;
let proxy: FlakyProxy;
beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startFlakyProxy(s3.endpoint);
});
afterAll(async () => {
  await proxy.close();
  await s3.stop();
});

describe('an S3 store whose first write-once put meets a transient error', () => {
  it('fails that put, and writes the marker once the store answers again', async () => {
    const store = openRawStore({
      location: parseRawStoreUrl(randomS3Url()),
      timeoutMs: 5000,
      s3PathStyle: true,
      s3Client: { ...s3.client, endpoint: proxy.endpoint, maxAttempts: 1 },
    });
    try {
      proxy.failing = true;
      await expect(store.putMarker('letter', 'in-flaky', 'first', 'once')).rejects.toThrow();
      expect(proxy.refused).toBeGreaterThan(0);
      proxy.failing = false;
      expect(await store.putMarker('letter', 'in-flaky', 'first', 'once')).toBe('written');
      expect(await store.getMarker('letter', 'in-flaky')).toBe('first');
      expect(await store.putMarker('letter', 'in-flaky', 'second', 'once')).toBe('exists');
    } finally {
      store.close();
    }
  });
});
