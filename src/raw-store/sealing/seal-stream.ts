// Sealing and opening as streams: a RawWrite that seals segment by segment as DATA arrives (one
// segment of plaintext held at most, as the chunks it came in), and a Transform that passes on a
// segment's plaintext only once its tag verified, the last segment only at the end of the stream
// (so a truncated blob fails).
import { Transform, type TransformCallback } from 'node:stream';
import type { RawWrite } from '../raw-store.js';
import type { Keyring } from './keyring.js';
import { HEADER_BYTES, newSeal, openHeader, openSegment, SealBroken, type SealContext, segmentCipher, TAG_BYTES } from './seal-format.js';

export function sealingWrite(inner: RawWrite, keyring: Keyring): RawWrite {
  return sealingWriteWith(inner, newSeal(keyring));
}

/**
 * Sealing under a given header and data key (sealingWrite makes them). No segment is assembled:
 * the chunks' bytes go through the segment's cipher as they lie, and each piece of ciphertext,
 * then the tag, is handed on as it comes (what the inner write does with them is its business).
 */
export function sealingWriteWith(inner: RawWrite, seal: SealContext): RawWrite {
  // Plaintext not sealed yet: the callers' chunks themselves (or their tails), not copies.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let counter = 0;
  let headerWritten = false;
  /** The inner write's waits since the caller's last write: each one is awaited (one that rejects unwatched ends the process). */
  let waits: Promise<void>[] = [];
  const emit = (piece: Buffer): void => {
    if (piece.length === 0) return;
    const wait = inner.write(piece);
    if (wait !== undefined) waits.push(wait);
  };
  const takeWaits = (): Promise<void> | undefined => {
    const taken = waits;
    waits = [];
    if (taken.length <= 1) return taken[0];
    return Promise.all(taken).then(() => undefined);
  };
  /** Seals the first `bytes` of what is pending as the next segment. */
  const sealNext = (bytes: number, last: boolean): void => {
    if (!headerWritten) {
      headerWritten = true;
      emit(seal.header);
    }
    const cipher = segmentCipher(seal, counter++, last);
    let left = bytes;
    let used = 0;
    while (left > 0) {
      const piece = pending[used] as Buffer;
      if (piece.length <= left) {
        emit(cipher.update(piece));
        left -= piece.length;
        used++;
      } else {
        emit(cipher.update(piece.subarray(0, left)));
        pending[used] = piece.subarray(left);
        left = 0;
      }
    }
    pending = used === 0 ? pending : pending.slice(used);
    pendingBytes -= bytes;
    emit(cipher.final());
    emit(cipher.getAuthTag());
  };
  return {
    key: inner.key,
    get buffered() {
      return inner.buffered + pendingBytes;
    },
    write(chunk) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      // Full segments go out while more than one segment is held: the last is known only at commit.
      while (pendingBytes > seal.segmentBytes) sealNext(seal.segmentBytes, false);
      // The tail of a chunk of many segments is copied: it must not pin the whole chunk until commit.
      if (chunk.length > 2 * seal.segmentBytes && pending.length === 1 && pending[0] !== chunk)
        pending = [Buffer.from(pending[0] as Buffer)];
      return takeWaits();
    },
    async commit() {
      sealNext(pendingBytes, true);
      await takeWaits();
      await inner.commit();
    },
    abort: () => inner.abort(),
  };
}

/** Opens a sealed stream; errors with SealBroken on the first segment that does not verify. */
export function openingTransform(keyring: Keyring): Transform {
  let seal: SealContext | undefined;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let counter = 0;
  const take = (bytes: number): Buffer => {
    const all = held.length === 1 ? (held[0] ?? Buffer.alloc(0)) : Buffer.concat(held, heldBytes);
    held = [all.subarray(bytes)];
    heldBytes -= bytes;
    return all.subarray(0, bytes);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      held.push(chunk);
      heldBytes += chunk.length;
      try {
        if (seal === undefined) {
          if (heldBytes < HEADER_BYTES) return done();
          seal = openHeader(keyring, take(HEADER_BYTES));
        }
        const step = seal.segmentBytes + TAG_BYTES;
        while (heldBytes > step) this.push(openSegment(seal, counter++, false, take(step)));
        done();
      } catch (err) {
        done(err instanceof Error ? err : new SealBroken(String(err)));
      }
    },
    flush(done: TransformCallback) {
      try {
        if (seal === undefined) throw new SealBroken('the blob ends inside its header');
        if (heldBytes === 0 && counter > 0) throw new SealBroken('the blob ends without its last segment');
        this.push(openSegment(seal, counter++, true, take(heldBytes)));
        done();
      } catch (err) {
        done(err instanceof Error ? err : new SealBroken(String(err)));
      }
    },
  });
}
