// The markers beside the blobs, on every kind of raw store: durable, write-once when asked, read
// by key, listed for discovery, and never mistaken for blobs by the orphan sweep's listing.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkRawStore, type RawStoreProbe, rawStoreProbe } from '../../src/doctor/raw-store-checks.js';
import type { MarkerKind, RawStore } from '../../src/raw-store/raw-store.js';
import { s3RawStore } from '../../src/raw-store/s3-store.js';
import { blobsIn, freshRawStores, putBlob, RAW_STORE_KINDS } from '../helpers/raw-stores.js';

async function idsIn(store: RawStore, kind: MarkerKind): Promise<string[]> {
  const ids: string[] = [];
  for await (const marker of store.listMarkers(kind)) ids.push(marker.id);
  return ids.sort();
}

describe.each(RAW_STORE_KINDS)('markers in the $name raw store', (kind) => {
  const open = freshRawStores(kind);

  it('gives back a marker by its key, and nothing for one never written', async () => {
    const { store } = open();
    expect(await store.putMarker('accepted', 'in0123abcd', '{"a":1}', 'replace')).toBe('written');
    expect(await store.getMarker('accepted', 'in0123abcd')).toBe('{"a":1}');
    expect(await store.getMarker('ended', 'in0123abcd')).toBeUndefined();
    expect(await store.getMarker('accepted', 'in9999')).toBeUndefined();
  });

  it('creates a write-once marker once: a second writer finds the first one', async () => {
    const { store } = open();
    expect(await store.putMarker('letter', 'in42', 'first', 'once')).toBe('written');
    expect(await store.putMarker('letter', 'in42', 'second', 'once')).toBe('exists');
    expect(await store.getMarker('letter', 'in42')).toBe('first');
  });

  it('lets one of two writers racing for a write-once marker win, and keeps its bytes', async () => {
    const { store } = open();
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((body) => store.putMarker('letter', 'in7', body, 'once')));
    const winners = answers.flatMap((answer, i) => (answer === 'written' ? [['a', 'b', 'c', 'd'][i]] : []));
    expect(winners).toHaveLength(1);
    expect(await store.getMarker('letter', 'in7')).toBe(winners[0]);
  });

  it('replaces a marker written with replace', async () => {
    const { store } = open();
    await store.putMarker('ended', 'in5', 'failed', 'replace');
    await store.putMarker('ended', 'in5', 'submitted', 'replace');
    expect(await store.getMarker('ended', 'in5')).toBe('submitted');
  });

  it('lists markers of one kind, deletes them, and keeps them out of the blob listing', async () => {
    const { store } = open();
    const blob = await putBlob(store, Buffer.from('Subject: x\r\n\r\nbody\r\n'));
    await store.putMarker('accepted', 'in1', 'x', 'replace');
    await store.putMarker('accepted', 'in2', 'x', 'replace');
    await store.putMarker('ended', 'in1', 'x', 'replace');
    expect(await idsIn(store, 'accepted')).toEqual(['in1', 'in2']);
    expect(await idsIn(store, 'ended')).toEqual(['in1']);
    expect((await blobsIn(store)).committed).toEqual([blob.blobKey]);
    await store.deleteMarker('accepted', 'in1');
    await store.deleteMarker('accepted', 'in-never');
    expect(await idsIn(store, 'accepted')).toEqual(['in2']);
  });

  // s3rver ignores If-None-Match: *, as some S3-compatible stores do: doctor fails that check there.
  const writtenOnce = kind.name === 'file' ? 'ok' : 'fail';
  it(`gets the doctor's checks: read after write, and written once (${writtenOnce})`, async () => {
    const { store } = open();
    const results = await checkRawStore(rawStoreProbe(store), 7);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['writable and readable', 'ok'],
      ['markers read after write, written once', writtenOnce],
      ['retention', 'ok'],
    ]);
    if (writtenOnce === 'fail') {
      expect(results[1]?.detail).toMatch(/ignores conditional puts \(If-None-Match: \*\).*two letters/);
    }
    expect(await idsIn(store, 'letter')).toEqual([]); // the probe is gone
  });

  it('refuses an id that is not a marker name', async () => {
    const { store } = open();
    await expect(store.putMarker('accepted', '../escape', 'x', 'replace')).rejects.toThrow();
  });
});

describe('doctor on a versioned S3 bucket', () => {
  /** An S3 endpoint on loopback that says only how the bucket's versioning stands (GET ?versioning). */
  async function versioningAnswer(status: string): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && new URL(req.url ?? '/', 'http://s3').searchParams.has('versioning')) {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?><VersioningConfiguration><Status>${status}</Status></VersioningConfiguration>`);
        return;
      }
      res.writeHead(501).end();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
  }

  it.each([
    ['Enabled', 'warn'],
    ['Suspended', 'warn'],
    ['', 'none'],
  ])('versioning %j: the old-versions check is %s', async (status, expected) => {
    const endpoint = await versioningAnswer(status);
    const store = s3RawStore({
      bucket: 'letters-raw',
      prefix: 'intake/',
      timeoutMs: 5000,
      forcePathStyle: true,
      client: { endpoint: endpoint.url, region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' } },
    });
    try {
      // Only the versioning question goes to the endpoint: the round trips are taken as they would pass.
      const { keepsOldVersions } = rawStoreProbe(store);
      const probe: RawStoreProbe = {
        location: store.location,
        roundTrip: (bytes) => Promise.resolve(bytes),
        ...(keepsOldVersions === undefined ? {} : { keepsOldVersions }),
      };
      const results = await checkRawStore(probe, 7, true);
      const row = results.find((r) => r.name === 'old versions');
      expect(row?.status ?? 'none').toBe(expected);
      if (expected === 'warn')
        expect(row?.detail).toMatch(/noncurrent versions; after a key rotation, `rekey` leaves.*NoncurrentVersionExpiration/);
    } finally {
      store.close();
      await endpoint.close();
    }
  });
});
