// Whether a blob no record points at was answered 250 (docs/design.md §13): the housekeeping
// sweep asks before it deletes an orphan. The blob's intake id is its content digest's prefix,
// computed again from its bytes, and `accepted/<id>` is read by that key (never a listing): a
// marker naming this blob means Redis lost the intake, which is alerted on and recovered, never
// deleted, unless Redis holds the intake's record pointing at another copy of the same bytes:
// this blob is then a re-delivery's orphan copy, and the marker is pointed at the record's blob
// before it goes. A blob whose id cannot be computed again as the listener did is kept.

import { withContentDigest } from '../intake/content-digest.js';
import { intakeIdFor } from '../intake/intake-id.js';
import type { RawSpool } from '../intake/raw-spool.js';
import { headerBlockOf } from '../mime/header-block.js';
import { SealBroken } from '../raw-store/sealing/seal-format.js';
import { type RecoverDeps, recoverIntake } from './recover.js';

/** The listener digests a header block of at most this many bytes (smtp/message-collector.ts). */
const LISTENER_HEAD_BYTES = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/** The intake id the listener gave these bytes, or undefined when the blob cannot tell. */
export function intakeIdOfBlob(bytes: Buffer): string | undefined {
  const headerBlock = headerBlockOf(bytes);
  if (headerBlock.length >= LISTENER_HEAD_BYTES) return undefined;
  const { spool, digest } = withContentDigest(DISCARD);
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) void spool.write(bytes.subarray(at, at + CHUNK_BYTES));
  return intakeIdFor(digest(headerBlock));
}

/** True when the blob must be kept: it may have been answered 250 (and it is recovered now). */
export function acceptedBlobCheck(deps: RecoverDeps): (blobKey: string) => Promise<boolean> {
  return async (blobKey) => {
    let bytes: Buffer | undefined;
    try {
      bytes = await deps.rawStore.readBuffer(blobKey);
    } catch (err) {
      if (!(err instanceof SealBroken)) throw err;
      // A blob that does not open may be a letter answered 250 under a key we lack: kept, never deleted unread.
      deps.observer?.operatorAlert('RawStoreSealBroken');
      deps.logger.error(
        { err, event: 'raw_store.seal_broken', blobKey },
        'an unreferenced blob does not open under the raw store keys: kept',
      );
      return true;
    }
    if (bytes === undefined) return false; // gone already
    const intakeId = intakeIdOfBlob(bytes);
    if (intakeId === undefined) {
      deps.logger.warn(
        { event: 'raw_store.orphan_unidentified', blobKey },
        'an unreferenced blob whose intake id cannot be computed is kept',
      );
      return true;
    }
    const marker = await deps.markers.accepted(intakeId);
    if (marker === undefined || marker.blobKey !== blobKey) return false;
    const record = await deps.store.get(intakeId);
    if (record !== undefined) {
      if (record.rawKey === undefined || record.rawKey === blobKey) return true; // not an orphan after all
      await deps.markers.putAccepted({ ...marker, blobKey: record.rawKey, rawHeaders: record.rawHeaders ?? marker.rawHeaders });
      deps.logger.info(
        { event: 'raw_store.accepted_copy_repointed', intakeId, blobKey, recordBlobKey: record.rawKey },
        'accepted/ named an orphan copy of a live intake: it now names the blob the record points at',
      );
      return false;
    }
    deps.observer?.operatorAlert('AcceptedWithoutRecord');
    deps.logger.error(
      { event: 'raw_store.accepted_without_record', intakeId, blobKey },
      'a message answered 250 has no intake record: Redis lost it; recovering it from the raw store',
    );
    await recoverIntake(deps, intakeId);
    return true;
  };
}

const DISCARD: RawSpool = {
  write: () => undefined,
  finish: () => Promise.reject(new Error('a digest-only spool stores nothing')),
  discard: () => Promise.resolve(),
  buffered: 0,
};
