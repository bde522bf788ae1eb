// The s3:// raw store: one object per message in a bucket of any S3-compatible store, through
// the AWS SDK v3 with its standard configuration (AWS_REGION, the credential chain,
// AWS_ENDPOINT_URL_S3 for a non-AWS endpoint). A write streams the message into a multipart
// upload (lib-storage) while DATA arrives; the object exists only once the upload completed.
// An upload left incomplete by a crash is invisible to readers and listings: the bucket's
// AbortIncompleteMultipartUpload lifecycle rule removes it (docs/deploying.md).
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isBlobKey, newBlobKey } from './blob-key.js';
import { bounded, storeError } from './bounded.js';
import { BlobChanged, isMarkerId, type MarkerKind, type RawStore, type RawWrite, type StoredBlob, type StoredMarker } from './raw-store.js';

export interface S3StoreOptions {
  readonly bucket: string;
  /** '' or ending with '/'. */
  readonly prefix: string;
  /** Bound on each request (and on a whole commit). */
  readonly timeoutMs: number;
  /** Path-style addressing (bucket in the path): many S3-compatible stores need it. */
  readonly forcePathStyle: boolean;
  /** Anything else for the client; unset fields come from the SDK's standard configuration. */
  readonly client?: S3ClientConfig;
  /** Called with the client once made (RAW_STORE_S3_SSE adds its middleware, s3-sse.ts). */
  readonly onClient?: (client: S3Client) => void;
  /** Told of a probe object whose delete failed (the orphan sweep removes it later). */
  readonly probeLeft?: ((key: string, err: unknown) => void) | undefined;
}

/** Objects the store writes to learn what the server does; none outlives the question but by a failed delete. */
const PROBE_PREFIX = '.probe-';

/** S3's minimum part size; the last part may be smaller, and a message under it is one PUT. */
export const PART_BYTES = 5 * 1024 * 1024;

export function s3RawStore(options: S3StoreOptions): RawStore {
  const { bucket, prefix, timeoutMs } = options;
  const client = new S3Client({
    forcePathStyle: options.forcePathStyle,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
    ...options.client,
  });
  options.onClient?.(client);
  const objectKey = (key: string): string => {
    if (!isBlobKey(key)) throw new Error(`not a raw store key: ${JSON.stringify(key)}`);
    return prefix + key;
  };
  const markerKey = (kind: MarkerKind, id: string): string => {
    if (!isMarkerId(id)) throw new Error(`not a marker id: ${JSON.stringify(id)}`);
    return `${prefix}${kind}/${id}`;
  };
  const signal = (): AbortSignal => AbortSignal.timeout(timeoutMs);
  const deleteProbe = async (fullKey: string): Promise<void> => {
    await client
      .send(new DeleteObjectCommand({ Bucket: bucket, Key: fullKey }), { abortSignal: signal() })
      .catch((err: unknown) => options.probeLeft?.(fullKey, err));
  };

  const getObject = async (key: string) => getFullKey(objectKey(key));
  /** The blob's ETag, or undefined when there is none under the key. */
  const etagOf = (key: string): Promise<string | undefined> => etagOfFull(objectKey(key));
  const etagOfFull = async (fullKey: string): Promise<string | undefined> => {
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey }), { abortSignal: signal() });
      return head.ETag ?? '';
    } catch (err) {
      if (err instanceof Error && (err.name === 'NotFound' || err.name === 'NoSuchKey' || statusOf(err) === 404)) return undefined;
      throw err;
    }
  };
  /** With `ifAbsent`, false when the server refused the put because the key exists (412). */
  const putObject = async (fullKey: string, body: string, ifAbsent = false): Promise<boolean> => {
    const command = new PutObjectCommand({ Bucket: bucket, Key: fullKey, Body: body, ...(ifAbsent ? { IfNoneMatch: '*' } : {}) });
    try {
      await client.send(command, { abortSignal: signal() });
      return true;
    } catch (err) {
      if (ifAbsent && err instanceof Error && (err.name === 'PreconditionFailed' || statusOf(err) === 412)) return false;
      throw err;
    }
  };
  /**
   * Whether the server refuses a second If-None-Match: * put of one key (some S3-compatible stores
   * ignore the header). Asked once per process; a probe that fails without an answer (a time-out,
   * a 5xx) is not one, and the next write-once put asks again.
   */
  let conditional: Promise<boolean> | undefined;
  const conditionalPuts = (): Promise<boolean> => {
    conditional ??= honoursIfNoneMatch().catch((err: unknown) => {
      conditional = undefined;
      throw err;
    });
    return conditional;
  };
  const honoursIfNoneMatch = async (): Promise<boolean> => {
    const key = `${prefix}${PROBE_PREFIX}${randomUUID()}`;
    try {
      await putObject(key, 'probe\n');
      return !(await putObject(key, 'probe again\n', true).catch(refusedHeader));
    } finally {
      await deleteProbe(key);
    }
  };

  /**
   * Whether the server refuses a put whose If-Match names another version (AWS S3 does; some
   * stores ignore the header, some refuse it as unknown). Only then does a replace send it: to a
   * store that refuses the header it would fail every replace. Asked once per process, like above.
   */
  let ifMatch: Promise<boolean> | undefined;
  const honoursIfMatch = (): Promise<boolean> => {
    ifMatch ??= (async () => {
      const key = `${prefix}${PROBE_PREFIX}${randomUUID()}`;
      try {
        await putObject(key, 'probe\n');
        const stale = new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'probe again\n', IfMatch: '"0"' });
        return await client.send(stale, { abortSignal: signal() }).then(
          () => false,
          (err: unknown) => (err instanceof Error && statusOf(err) === 412 ? true : !refusedHeader(err)),
        );
      } finally {
        await deleteProbe(key);
      }
    })().catch((err: unknown) => {
      ifMatch = undefined;
      throw err;
    });
    return ifMatch;
  };

  const getFullKey = async (fullKey: string) => {
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: fullKey }), { abortSignal: signal() });
    } catch (err) {
      if (err instanceof Error && err.name === 'NoSuchKey') return undefined;
      throw err;
    }
  };

  return {
    location: `s3://${bucket}/${prefix}`,
    begin: () => s3Write(client, bucket, prefix, timeoutMs),
    async replace(key) {
      const etag = await bounded(etagOf(key), timeoutMs, `head ${key}`);
      if (etag === undefined) return undefined;
      const stillThere = async (): Promise<boolean> => (await bounded(etagOf(key), timeoutMs, `head ${key}`)) === etag;
      const conditional = await bounded(honoursIfMatch(), timeoutMs, 'probe If-Match');
      return s3Write(client, bucket, prefix, timeoutMs, { key, etag: conditional ? etag : '', stillThere });
    },
    async read(key) {
      const object = await bounded(getObject(key), timeoutMs, `get ${key}`);
      if (object?.Body === undefined) return undefined;
      // In Node the SDK's body is an http.IncomingMessage (a Readable).
      return object.Body instanceof Readable ? object.Body : Readable.from(await object.Body.transformToByteArray());
    },
    async readBuffer(key, front) {
      const read = async (): Promise<Buffer | undefined> => {
        const object = await getObject(key);
        if (object?.Body === undefined) return undefined;
        const bytes = await object.Body.transformToByteArray();
        const blob = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return front === undefined || front.length === 0 ? blob : Buffer.concat([front, blob]);
      };
      return bounded(read(), timeoutMs, `read ${key}`);
    },
    async delete(key) {
      const command = new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) });
      await bounded(client.send(command, { abortSignal: signal() }), timeoutMs, `delete ${key}`);
    },
    async *listOlderThan(before) {
      let token: string | undefined;
      do {
        // Delimiter: only this prefix's own objects, not those of a deeper "folder".
        const command = new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token });
        const page = await bounded(client.send(command, { abortSignal: signal() }), timeoutMs, 'list');
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(prefix.length);
          const modifiedAt = object.LastModified?.getTime();
          if (key === undefined || modifiedAt === undefined || !isBlobKey(key)) continue;
          // A probe whose delete failed is nobody's message: the orphan sweep deletes it like an incomplete write.
          if (modifiedAt < before) yield { key, modifiedAt, incomplete: key.startsWith(PROBE_PREFIX) } satisfies StoredBlob;
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    },
    async putMarker(kind, id, body, mode) {
      const key = markerKey(kind, id);
      const put = async (): Promise<'written' | 'exists'> => {
        if (mode === 'replace') {
          await putObject(key, body);
          return 'written';
        }
        if (await conditionalPuts()) return (await putObject(key, body, true)) ? 'written' : 'exists';
        // No conditional put: a read before and after. Two writers racing can both see their own
        // bytes; the intake side makes the owner of an intake the only writer of its letter marker.
        if ((await getFullKey(key)) !== undefined) return 'exists';
        await putObject(key, body);
        const back = await (await getFullKey(key))?.Body?.transformToString();
        return back === body ? 'written' : 'exists';
      };
      return bounded(put(), timeoutMs, `put ${kind}/${id}`);
    },
    async replaceMarker(kind, id, was, body) {
      const key = markerKey(kind, id);
      const put = async (): Promise<'written' | 'gone'> => {
        const current = await getFullKey(key);
        const text = await current?.Body?.transformToString();
        if (current === undefined || text !== was) return 'gone';
        const etag = current.ETag ?? '';
        if (etag !== '' && (await honoursIfMatch())) {
          // The store refuses the put when the marker went (404) or changed (412) since it was read.
          const command = new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, IfMatch: etag });
          return client.send(command, { abortSignal: signal() }).then(
            () => 'written' as const,
            (err: unknown) => {
              if (err instanceof Error && (statusOf(err) === 412 || statusOf(err) === 404 || err.name === 'NoSuchKey')) return 'gone';
              throw err;
            },
          );
        }
        // A store that ignores If-Match: asked again just before the put. A delete landing between
        // the two requests is undone; that window is one request long (none where If-Match holds).
        if ((await etagOfFull(key)) !== etag) return 'gone';
        await putObject(key, body);
        return 'written';
      };
      return bounded(put(), timeoutMs, `replace ${kind}/${id}`);
    },
    async getMarker(kind, id) {
      const key = markerKey(kind, id);
      const get = async (): Promise<string | undefined> => (await getFullKey(key))?.Body?.transformToString();
      return bounded(get(), timeoutMs, `get ${kind}/${id}`);
    },
    async deleteMarker(kind, id) {
      const command = new DeleteObjectCommand({ Bucket: bucket, Key: markerKey(kind, id) });
      await bounded(client.send(command, { abortSignal: signal() }), timeoutMs, `delete ${kind}/${id}`);
    },
    async *listMarkers(kind) {
      const markerPrefix = `${prefix}${kind}/`;
      let token: string | undefined;
      do {
        const command = new ListObjectsV2Command({ Bucket: bucket, Prefix: markerPrefix, Delimiter: '/', ContinuationToken: token });
        const page = await bounded(client.send(command, { abortSignal: signal() }), timeoutMs, `list ${kind}`);
        for (const object of page.Contents ?? []) {
          const id = object.Key?.slice(markerPrefix.length);
          const modifiedAt = object.LastModified?.getTime();
          if (id === undefined || modifiedAt === undefined || !isMarkerId(id)) continue;
          yield { id, modifiedAt } satisfies StoredMarker;
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    },
    keepsTimesOnReplace: false, // a put's LastModified is its own
    async exclusiveCreate() {
      return bounded(conditionalPuts(), timeoutMs, 'probe conditional puts');
    },
    async keepsOldVersions() {
      const ask = async (): Promise<boolean> => {
        try {
          const answer = await client.send(new GetBucketVersioningCommand({ Bucket: bucket }), { abortSignal: signal() });
          // Suspended: what was written while it was enabled still keeps its versions.
          return answer.Status === 'Enabled' || answer.Status === 'Suspended';
        } catch (err) {
          if (err instanceof Error && (err.name === 'NotImplemented' || statusOf(err) === 501)) return false; // a store without versioning
          throw err;
        }
      };
      return bounded(ask(), timeoutMs, 'ask for bucket versioning');
    },
    async check() {
      // A probe object written, read back and deleted: the bucket exists and this identity may
      // write, read and delete in it (what the listener, the worker and retention do).
      const key = `${PROBE_PREFIX}${randomUUID()}`;
      const content = `probe ${key}\n`;
      const run = async (): Promise<void> => {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: content }), { abortSignal: signal() });
        const back = await getObject(key);
        const text = await back?.Body?.transformToString();
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }), { abortSignal: signal() });
        if (text !== content) throw new Error('read back different bytes than written');
      };
      await bounded(run(), timeoutMs, `check s3://${bucket}/${prefix}`);
    },
    close() {
      client.destroy();
    },
  };
}

/**
 * A conditional put the server turned down as such (501 Not Implemented, 400 for an unknown
 * header) is an answer: the store has no conditional puts (the put wrote nothing). Anything else
 * (a time-out, a 5xx) says nothing about the header: thrown, so the question is asked again.
 */
function refusedHeader(err: unknown): boolean {
  if (err instanceof Error && (err.name === 'NotImplemented' || statusOf(err) === 501 || statusOf(err) === 400)) return true;
  throw err;
}

function statusOf(err: Error): number | undefined {
  const meta: unknown = '$metadata' in err ? err.$metadata : undefined;
  if (typeof meta !== 'object' || meta === null || !('httpStatusCode' in meta)) return undefined;
  return typeof meta.httpStatusCode === 'number' ? meta.httpStatusCode : undefined;
}

/**
 * A new version of a committed blob, put over it. If-Match (the ETag it had) goes with the put, or
 * with the multipart upload's completion: a store that honours it (AWS S3) refuses to bring back
 * a blob deleted meanwhile or to overwrite one changed meanwhile. For one that ignores it, the ETag
 * is asked again when the commit begins, before the last part (up to 5 MiB; the whole put for a
 * blob under one part) is sent and the upload completed: a delete landing in that time is undone.
 */
interface Replacing {
  readonly key: string;
  /** '' when the store does not honour If-Match. */
  readonly etag: string;
  readonly stillThere: () => Promise<boolean>;
}

function s3Write(client: S3Client, bucket: string, prefix: string, timeoutMs: number, replacing?: Replacing): RawWrite {
  const key = replacing?.key ?? newBlobKey();
  const body = new PassThrough();
  // One part in flight: memory per message stays near one part, whatever the message size.
  const upload = new Upload({
    client,
    params: {
      Bucket: bucket,
      Key: prefix + key,
      Body: body,
      ContentType: 'message/rfc822',
      ...(replacing === undefined || replacing.etag === '' ? {} : { IfMatch: replacing.etag }),
    },
    partSize: PART_BYTES,
    queueSize: 1,
    leavePartsOnError: false,
  });
  // What the upload acknowledged so far (after each part): the rest of what was written is held here.
  let written = 0;
  let uploaded = 0;
  upload.on('httpUploadProgress', (progress) => {
    uploaded = Math.max(uploaded, progress.loaded ?? 0);
  });
  const done = upload.done().then(() => undefined);
  done.catch(() => undefined); // surfaced by write() and commit()
  const drop = async (): Promise<void> => {
    body.destroy();
    await bounded(
      upload.abort().catch(() => undefined),
      timeoutMs,
      `abort ${key}`,
    );
  };

  return {
    key,
    write(chunk) {
      written += chunk.length;
      if (body.write(chunk)) return undefined;
      // Full: wait until the upload takes more, or fails, or the bound passes.
      return bounded(Promise.race([once(body, 'drain').then(() => undefined), done]), timeoutMs, `write ${key}`);
    },
    async commit() {
      if (replacing !== undefined) {
        const there = await replacing.stillThere().catch(async (err: unknown) => {
          await drop();
          throw err;
        });
        if (!there) {
          await drop();
          throw new BlobChanged(`blob ${key} went or changed while its new version was written`);
        }
      }
      body.end();
      try {
        await bounded(done, timeoutMs, `commit ${key}`);
      } catch (err) {
        await upload.abort().catch(() => undefined);
        // The store refused the If-Match: the blob went (404) or is another version (412).
        const answer = err instanceof Error && err.cause instanceof Error ? err.cause : err;
        if (
          replacing !== undefined &&
          answer instanceof Error &&
          (statusOf(answer) === 412 || statusOf(answer) === 404 || answer.name === 'NoSuchKey')
        ) {
          throw new BlobChanged(`blob ${key} went or changed while its new version was written`, { cause: answer });
        }
        throw storeError(err, `commit ${key}`);
      }
    },
    abort: drop,
    get buffered() {
      // The stream's buffer and the part being assembled or sent (at most one part: queueSize 1).
      return Math.max(0, written - uploaded);
    },
  };
}
