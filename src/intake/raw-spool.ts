// Where a message's bytes go while they arrive: straight to the raw store (a directory or an S3
// bucket), so neither the listener's memory nor Redis grows with message size × concurrent
// clients. finish() commits the blob (durable before any 250); the record then points at it
// (IntakeStore.create). A message refused or abandoned before the commit leaves nothing; a
// committed blob that no record came to point at (Redis failed, the listener died) is an orphan
// the raw-store sweep removes.
import type { RawStore } from '../raw-store/raw-store.js';

/** The message body once stored: a committed blob in the raw store. */
export interface StoredBody {
  readonly blobKey: string;
}

export interface RawSpool {
  /** Takes a chunk; a promise means: wait for it before the next chunk (backpressure). */
  write(chunk: Buffer): Promise<void> | undefined;
  /** Commits the whole body, once every byte was written. */
  finish(): Promise<StoredBody>;
  /** Forgets the message (refused, or the session ended). */
  discard(): Promise<void>;
  /** Bytes held in memory right now (not yet handed to the store). */
  readonly buffered: number;
}

export function rawStoreSpool(store: RawStore): () => RawSpool {
  return () => {
    const write = store.begin();
    let committing = false;
    return {
      write: (chunk) => write.write(chunk),
      async finish() {
        committing = true;
        await write.commit();
        return { blobKey: write.key };
      },
      async discard() {
        // Once a commit began, Redis may have recorded the blob before the reply failed (a
        // re-delivery then finds it): it is left to the sweep, which deletes only unreferenced blobs.
        if (!committing) await write.abort();
      },
      get buffered() {
        return write.buffered;
      },
    };
  };
}
