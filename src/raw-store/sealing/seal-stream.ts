// Sealing and opening as streams: a RawWrite that seals segment by segment as DATA arrives (one
// segment of plaintext held at most), and a Transform that passes on a segment's plaintext only
// once its tag verified, the last segment only at the end of the stream (so a truncated blob fails).
import { Transform, type TransformCallback } from 'node:stream';
import type { RawWrite } from '../raw-store.js';
import type { Keyring } from './keyring.js';
import { HEADER_BYTES, newSeal, openHeader, openSegment, SealBroken, type SealContext, sealSegment, TAG_BYTES } from './seal-format.js';

export function sealingWrite(inner: RawWrite, keyring: Keyring): RawWrite {
  const seal = newSeal(keyring);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let counter = 0;
  let headerWritten = false;
  const emit = (piece: Buffer): Promise<void> | undefined => {
    if (headerWritten) return inner.write(piece);
    headerWritten = true;
    return inner.write(Buffer.concat([seal.header, piece]));
  };
  return {
    key: inner.key,
    get buffered() {
      return inner.buffered + pendingBytes;
    },
    write(chunk) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes <= seal.segmentBytes) return undefined;
      // Full segments go out while more than one segment is held: the last is known only at commit.
      let all = pending.length === 1 ? chunk : Buffer.concat(pending, pendingBytes);
      let wait: Promise<void> | undefined;
      while (all.length > seal.segmentBytes) {
        wait = emit(sealSegment(seal, counter++, false, all.subarray(0, seal.segmentBytes))) ?? wait;
        all = all.subarray(seal.segmentBytes);
      }
      pending = [Buffer.from(all)]; // a copy: the rest of a large chunk must not pin the chunk
      pendingBytes = all.length;
      return wait;
    },
    async commit() {
      const rest = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await emit(sealSegment(seal, counter++, true, rest));
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
