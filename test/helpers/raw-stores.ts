// The raw-store test matrix: every suite that touches raw mail runs once per kind of store
// (describe.each(RAW_STORE_KINDS)), a directory and an S3-compatible server on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { StoredBody } from '../../src/intake/raw-spool.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore, type RawStoreSettings } from '../../src/raw-store/open-store.js';
import { rawMessageBytes } from '../../src/raw-store/raw-message.js';
import type { MarkerKind, RawStore } from '../../src/raw-store/raw-store.js';
import { randomS3Url, type S3Server, startS3Server } from './s3-server.js';

export interface RawStorePlace {
  /** RAW_STORE_URL for this place. */
  readonly url: string;
  /** Settings for openRawStore in the test process. */
  readonly settings: (timeoutMs?: number) => RawStoreSettings;
  /** Environment for a gateway process using this place (RAW_STORE_URL and the SDK's variables). */
  readonly env: Readonly<Record<string, string>>;
  readonly cleanup: () => void;
}

export interface RawStoreKind {
  readonly name: 'file' | 's3';
  /** Starts what this kind needs (call in beforeAll). */
  setup(): Promise<void>;
  /** Stops it (call in afterAll). */
  teardown(): Promise<void>;
  /** A fresh, empty place in the store. */
  fresh(): RawStorePlace;
}

const DEFAULT_TIMEOUT_MS = 5000;

const fileKind: RawStoreKind = {
  name: 'file',
  setup: () => Promise.resolve(),
  teardown: () => Promise.resolve(),
  fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'letter-intake-raw-'));
    const url = pathToFileURL(dir).href;
    return {
      url,
      settings: (timeoutMs = DEFAULT_TIMEOUT_MS) => ({ location: parseRawStoreUrl(url), timeoutMs, s3PathStyle: false }),
      env: { RAW_STORE_URL: url },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

function s3Kind(): RawStoreKind {
  let server: S3Server | undefined;
  const running = (): S3Server => {
    if (server === undefined) throw new Error('the s3 test server is not started (setup() in beforeAll)');
    return server;
  };
  return {
    name: 's3',
    async setup() {
      server ??= await startS3Server();
    },
    async teardown() {
      await server?.stop();
      server = undefined;
    },
    fresh() {
      const s3 = running();
      const url = randomS3Url();
      return {
        url,
        settings: (timeoutMs = DEFAULT_TIMEOUT_MS) => ({
          location: parseRawStoreUrl(url),
          timeoutMs,
          s3PathStyle: true,
          s3Client: s3.client,
        }),
        env: { RAW_STORE_URL: url, ...s3.env },
        cleanup: () => undefined, // the server's directory goes with teardown
      };
    },
  };
}

export const RAW_STORE_KINDS: readonly RawStoreKind[] = [fileKind, s3Kind()];

/**
 * Inside a describe.each(RAW_STORE_KINDS) block: the kind runs around the block, and each call
 * opens a store in a fresh place, closed and cleaned after the test that opened it.
 */
export function freshRawStores(kind: RawStoreKind): () => { readonly store: RawStore; readonly place: RawStorePlace } {
  const opened: { store: RawStore; place: RawStorePlace }[] = [];
  beforeAll(() => kind.setup());
  afterAll(() => kind.teardown());
  afterEach(() => {
    for (const { store, place } of opened.splice(0)) {
      store.close();
      place.cleanup();
    }
  });
  return () => {
    const place = kind.fresh();
    const opening = { store: openRawStore(place.settings()), place };
    opened.push(opening);
    return opening;
  };
}

/** Commits `bytes` as a blob, as the listener would: for tests that write records themselves. */
export async function putBlob(store: RawStore, bytes: Buffer): Promise<StoredBody> {
  const write = store.begin();
  await write.write(bytes);
  await write.commit();
  return { blobKey: write.key };
}

/** A blob key no store holds: for records whose message a test never reads. */
export const UNREAD_BLOB: StoredBody = { blobKey: '00000000-0000-4000-8000-000000000000.eml' };

/** Every blob in a store, committed and incomplete (a write that was neither committed nor aborted). */
export async function blobsIn(store: RawStore): Promise<{ readonly committed: string[]; readonly incomplete: string[] }> {
  const committed: string[] = [];
  const incomplete: string[] = [];
  for await (const blob of store.listOlderThan(Date.now() + 3600_000)) (blob.incomplete ? incomplete : committed).push(blob.key);
  return { committed, incomplete };
}

/** The store with every write of a `kind` marker refused, as a store that took the blob and then failed. */
export function refusingMarkers(inner: RawStore, kind: MarkerKind): RawStore {
  return {
    ...inner,
    putMarker(asked, id, body, mode) {
      if (asked === kind) return Promise.reject(new Error(`the raw store refused the ${kind}/ marker of ${id}`));
      return inner.putMarker(asked, id, body, mode);
    },
  };
}

/** An intake's stored message (its header lines, then its blob), or undefined when the record or the blob is gone. */
export async function storedMessage(store: Pick<IntakeStore, 'get'>, rawStore: RawStore, intakeId: string): Promise<Buffer | undefined> {
  const record = await store.get(intakeId);
  return record === undefined ? undefined : rawMessageBytes(rawStore, record);
}
