// Write-once markers on an S3 store: the store's conditional put (If-None-Match: *) is asked
// for, not assumed, and a failed question is asked again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { checkRawStoreAtStart, openRawStore } from '../../src/raw-store/open-store.js';
import { capturedLogs } from '../helpers/captured-logs.js';
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

describe('a store without conditional puts at start', () => {
  it('starts, and warns that letter/ is written once only as far as one Redis primary orders it', async () => {
    const location = parseRawStoreUrl(randomS3Url());
    const store = openRawStore({ location, timeoutMs: 5000, s3PathStyle: true, s3Client: s3.client });
    const { logger, logs } = capturedLogs();
    try {
      expect(await store.exclusiveCreate()).toBe(false); // s3rver ignores If-None-Match: *
      await checkRawStoreAtStart(store, location, logger);
      await new Promise((ok) => setImmediate(ok));
      const warning = logs.find((l) => l.event === 'raw_store.write_once_unprotected');
      expect(warning?.level).toBe(40);
      expect(String(warning?.msg)).toMatch(/conditional puts.*two letters/);
    } finally {
      store.close();
    }
  });

  it('says nothing of the kind for a directory, whose write-once is an exclusive create', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-raw-'));
    const location = parseRawStoreUrl(pathToFileURL(dir).href);
    const store = openRawStore({ location, timeoutMs: 5000, s3PathStyle: false });
    const { logger, logs } = capturedLogs();
    try {
      expect(await store.exclusiveCreate()).toBe(true);
      await checkRawStoreAtStart(store, location, logger);
      await new Promise((ok) => setImmediate(ok));
      expect(logs.filter((l) => l.event === 'raw_store.write_once_unprotected')).toEqual([]);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
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
