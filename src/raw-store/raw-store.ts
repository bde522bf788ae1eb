// The raw store: where accepted messages live, byte for byte, outside Redis (Redis keeps the
// queue, the records and small indexes). One interface, two places: a directory (file://) and
// an S3-compatible bucket (s3://), chosen by RAW_STORE_URL.
//
// A blob is written while DATA arrives and becomes visible only when committed: before that a
// reader, a lister and a crash see nothing but an abandoned incomplete write. Keys are chosen
// by the store at `begin` (the intake id is only known at the end of DATA); the intake record
// points at the key. Every operation is bounded: a dead or slow store fails with
// IntakeError('StorageUnavailable') within the store's time-out, never hangs.
//
// Beside the blobs, small markers keyed by intake id (`accepted/<id>`, `letter/<id>`,
// `ended/<id>`) make the store the record of last resort when Redis is lost (docs/design.md §13).
// The store keeps their bytes; what they say is the intake side's (intake/markers.ts).
import type { Readable } from 'node:stream';

// `erased/<id>`: an erasure's tombstone (intake/erase.ts), without personal data.
export const MARKER_KINDS = ['accepted', 'letter', 'ended', 'erased'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

/** An intake id as a marker's name: safe as a file name and an S3 key. */
export function isMarkerId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

/**
 * What a store without its own exclusive create means for `letter/` (docs/design.md §13): said at
 * every start and by doctor, since the gateway still runs on such a store.
 */
export const WRITE_ONCE_UNPROTECTED =
  'the store ignores conditional puts (If-None-Match: *): letter/ is written once only as far as one Redis primary ' +
  "orders the intake's letter id; two Redis histories at once (a failover's split brain, or Redis lost while a run " +
  'records its letter) could make two letters. ' +
  'Use a store that honours If-None-Match: *, or a directory (docs/design.md §13)';

export interface RawStore {
  /** Where the blobs live, without credentials (logs, readiness). */
  readonly location: string;
  /** Starts a blob under a new key. */
  begin(): RawWrite;
  /**
   * Starts a new version of the committed blob under `key` (rekey seals it again), or undefined
   * when there is none. Its commit puts the new version in place whole (the old one stays until
   * then) and throws BlobChanged, writing nothing, when the blob went (or changed) meanwhile.
   */
  replace(key: string): Promise<RawWrite | undefined>;
  /** The committed blob as a stream, or undefined when there is none under the key. */
  read(key: string): Promise<Readable | undefined>;
  /**
   * The committed blob, whole, or undefined when there is none under the key. `front`: bytes to
   * put before the blob in the same buffer (a worker's header lines), so that a large message is
   * not copied a second time to join them.
   */
  readBuffer(key: string, front?: Uint8Array): Promise<Buffer | undefined>;
  /** Deletes a blob (or an abandoned incomplete write); deleting what is not there is fine. */
  delete(key: string): Promise<void>;
  /** Blobs and abandoned incomplete writes last modified before `before` (ms since the epoch). */
  listOlderThan(before: number): AsyncIterable<StoredBlob>;
  /**
   * Writes a marker durably before it resolves. 'replace' overwrites; 'once' creates it only if
   * there is none ('exists' then, and nothing is written): exclusive create on a directory, a
   * conditional put (If-None-Match: *) on S3 where the server honours it, else a read before and
   * after the put.
   */
  putMarker(kind: MarkerKind, id: string, body: string, mode: 'replace' | 'once'): Promise<'written' | 'exists'>;
  /**
   * Whether 'once' is the store's own exclusive create (a directory; a bucket whose server honours
   * If-None-Match: *), or only a read before and after the put, which two writers racing can both
   * pass (docs/design.md §13). Rejects when the store did not answer the question.
   */
  exclusiveCreate(): Promise<boolean>;
  /**
   * Puts `body` over the marker only while it still holds `was` (rekey seals it again): 'gone',
   * writing nothing, when it went or changed meanwhile, a delete landing during the call included
   * (file store; S3 where the store honours If-Match). On a directory a rewrite landing between the
   * store's claim and its rename is overwritten (claimedRename). A directory keeps the marker's mtime; on
   * S3 its LastModified becomes the put's, so marker retention reads the time in `ended/` itself.
   */
  replaceMarker(kind: MarkerKind, id: string, was: string, body: string): Promise<'written' | 'gone'>;
  /**
   * Whether replaceMarker keeps the marker's listing time (a directory keeps the mtime); false
   * where the put sets it anew (S3's LastModified), so retention must read `ended/` for the end.
   */
  readonly keepsTimesOnReplace: boolean;
  /** The marker's body, or undefined when there is none: read by its key, never from a listing. */
  getMarker(kind: MarkerKind, id: string): Promise<string | undefined>;
  /** Deletes a marker; deleting what is not there is fine. */
  deleteMarker(kind: MarkerKind, id: string): Promise<void>;
  /** Ids with a marker of this kind: for discovery only (a listing is never trusted for an absence). */
  listMarkers(kind: MarkerKind): AsyncIterable<StoredMarker>;
  /**
   * Whether the store keeps old versions of what is overwritten or deleted (an S3 bucket with
   * versioning enabled, or suspended after it was): retention's deletes and rekey's puts then
   * leave the old bytes behind. Absent where nothing keeps them (a directory).
   */
  readonly keepsOldVersions?: () => Promise<boolean>;
  /** Writes, reads back and deletes a probe: the store is reachable and writable. */
  check(): Promise<void>;
  /** Releases connections (S3 client sockets). */
  close(): void;
}

/** A replacing write's blob went (retention, erase) or changed while the new version was written. */
export class BlobChanged extends Error {
  override readonly name = 'BlobChanged';
}

export interface RawWrite {
  /** The key the blob will have once committed. */
  readonly key: string;
  /** Takes a chunk; a promise means: wait for it before the next chunk (backpressure). */
  write(chunk: Buffer): Promise<void> | undefined;
  /** Makes the blob durable and visible under `key` (fsync + rename; complete the upload). */
  commit(): Promise<void>;
  /** Drops whatever was written; safe after a failed write or commit. */
  abort(): Promise<void>;
  /** Bytes this write holds in memory, not yet handed to the store. */
  readonly buffered: number;
}

export interface StoredBlob {
  readonly key: string;
  readonly modifiedAt: number;
  /** An incomplete write nobody finished (a listener died mid-DATA), or a probe object left behind: nobody's message. */
  readonly incomplete: boolean;
}

export interface StoredMarker {
  readonly id: string;
  readonly modifiedAt: number;
}
