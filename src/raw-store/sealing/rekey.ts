// `letter-intake rekey`: after a key rotation (RAW_STORE_KEYS old,new), every blob and marker
// sealed under an older key is opened and sealed again under the writing key, so the old key can
// leave the keyring as soon as a run ends with nothing failed.
//
// A blob is rewritten in place, under its own key (the intake record, the `accepted/` marker and
// the blob index name it by that key, so none of them changes), streamed segment by segment: the
// new version is written beside it and put over it whole (store.replace), only once every segment
// of the old one verified. What does not open is left as it is and named. What is under the
// writing key already is skipped, so a run stopped half-way is simply run again.
import { pipeline, Readable } from 'node:stream';
import { BlobChanged, MARKER_KINDS, type RawStore } from '../raw-store.js';
import type { Keyring } from './keyring.js';
import { HEADER_BYTES, openHeader, SealBroken } from './seal-format.js';
import { openingTransform, sealingWrite } from './seal-stream.js';
import { markerKeyId, openMarker, sealMarker } from './sealed-store.js';

export interface RekeyFailure {
  /** The blob key, or `<kind>/<id>` for a marker. */
  readonly key: string;
  readonly reason: string;
}

export interface RekeyCounts {
  /** Sealed again under the writing key. */
  readonly rewritten: number;
  /** Under the writing key already: untouched. */
  readonly current: number;
  /** Gone or changed while the run looked at it: retention, an erase (or, for a marker, a new end) got there first. */
  readonly gone: number;
  /** Left as they are: sealed under a key not configured, altered, not sealed, or the store failed. */
  readonly failed: readonly RekeyFailure[];
}

export interface RekeyReport {
  readonly blobs: RekeyCounts;
  readonly markers: RekeyCounts;
}

/** Told of each blob or marker left as it was, with the error: SealBroken when it did not open. */
export type RekeyFailed = (key: string, err: unknown) => void;

/** `plain` is the store without sealing (what is stored, as stored); `keyring` has every key, the new one writing. */
export async function rekeyRawStore(plain: RawStore, keyring: Keyring, failed?: RekeyFailed): Promise<RekeyReport> {
  const blobs = await rekeyBlobs(plain, keyring, failed);
  const markers = await rekeyMarkers(plain, keyring, failed);
  return { blobs, markers };
}

class Tally {
  rewritten = 0;
  current = 0;
  gone = 0;
  readonly failed: RekeyFailure[] = [];
  constructor(private readonly told: RekeyFailed | undefined) {}
  fail(key: string, err: unknown): void {
    this.failed.push({ key, reason: err instanceof Error ? err.message : String(err) });
    this.told?.(key, err);
  }
  counts(): RekeyCounts {
    return { rewritten: this.rewritten, current: this.current, gone: this.gone, failed: this.failed };
  }
}

export async function rekeyBlobs(plain: RawStore, keyring: Keyring, failed?: RekeyFailed): Promise<RekeyCounts> {
  const tally = new Tally(failed);
  for await (const blob of plain.listOlderThan(Number.POSITIVE_INFINITY)) {
    // Incomplete writes and the stores' probes are nobody's message.
    if (blob.incomplete || blob.key.startsWith('.')) continue;
    try {
      tally[await rekeyBlob(plain, keyring, blob.key)]++;
    } catch (err) {
      tally.fail(blob.key, err);
    }
  }
  return tally.counts();
}

async function rekeyBlob(plain: RawStore, keyring: Keyring, key: string): Promise<'rewritten' | 'current' | 'gone'> {
  const stored = await plain.read(key);
  if (stored === undefined) return 'gone';
  try {
    const pieces = stored[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let head = Buffer.alloc(0);
    while (head.length < HEADER_BYTES) {
      const next = await pieces.next();
      if (next.done === true) break;
      head = Buffer.concat([head, next.value]);
    }
    // Says SealBroken for a blob that is not sealed, or under a key not configured, or whose header was altered.
    if (openHeader(keyring, head).keyId.equals(keyring.writing.id)) return 'current';
    const replacing = await plain.replace(key);
    if (replacing === undefined) return 'gone';
    const write = sealingWrite(replacing, keyring);
    try {
      const all = async function* (): AsyncGenerator<Buffer> {
        yield head;
        for (let next = await pieces.next(); next.done !== true; next = await pieces.next()) yield next.value;
      };
      // Each segment's plaintext is handed on only once it verified, the last one at the end:
      // a blob that does not open fails here, before the commit, and stays as it was.
      const opened = pipeline(Readable.from(all()), openingTransform(keyring), () => undefined);
      for await (const segment of opened) {
        const wait = write.write(segment as Buffer);
        if (wait !== undefined) await wait;
      }
      await write.commit();
      return 'rewritten';
    } catch (err) {
      await write.abort().catch(() => undefined);
      if (err instanceof BlobChanged) return 'gone';
      throw err instanceof SealBroken ? new SealBroken(`blob ${key}: ${err.message}`) : err;
    }
  } finally {
    stored.destroy();
  }
}

export async function rekeyMarkers(plain: RawStore, keyring: Keyring, failed?: RekeyFailed): Promise<RekeyCounts> {
  const tally = new Tally(failed);
  for (const kind of MARKER_KINDS) {
    for await (const { id } of plain.listMarkers(kind)) {
      const name = `${kind}/${id}`;
      try {
        const text = await plain.getMarker(kind, id);
        if (text === undefined) {
          tally.gone++;
          continue;
        }
        if (markerKeyId(text)?.equals(keyring.writing.id) === true) {
          tally.current++;
          continue;
        }
        // Put over the marker only while it is still the one read, keeping its age (a directory's
        // mtime; on S3 retention reads the time in ended/): a marker deleted meanwhile (retention,
        // erase) is not brought back, nor one rewritten before the store's claim (a replay's end).
        // A directory's rewrite landing between the claim and the rename is set back
        // (claimedRename; docs/operating.md, rekey).
        const body = openMarker(keyring, kind, id, text);
        const answer = await plain.replaceMarker(kind, id, text, sealMarker(keyring, kind, id, body));
        tally[answer === 'written' ? 'rewritten' : 'gone']++;
      } catch (err) {
        tally.fail(name, err);
      }
    }
  }
  return tally.counts();
}
