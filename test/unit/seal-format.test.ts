import { createCipheriv, createHash, createSecretKey, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RawWrite } from '../../src/raw-store/raw-store.js';
import { keyringOf } from '../../src/raw-store/sealing/keyring.js';
import {
  HEADER_BYTES,
  MAGIC,
  openWhole,
  SEGMENT_BYTES,
  SealBroken,
  type SealContext,
  sealSegment,
  sealWhole,
  TAG_BYTES,
} from '../../src/raw-store/sealing/seal-format.js';
import { openingTransform, sealingWriteWith } from '../../src/raw-store/sealing/seal-stream.js';

const OLD = Buffer.alloc(32, 1).toString('base64');
const NEW = Buffer.alloc(32, 2).toString('base64');
const keyring = keyringOf([OLD], 'test');

/** The sealed bytes streamed through the opening transform in small pieces; what came out before any error. */
async function openStreamed(sealed: Buffer, ring = keyring): Promise<{ plain: Buffer; error?: unknown }> {
  const pieces: Buffer[] = [];
  for (let at = 0; at < sealed.length; at += 7919) pieces.push(sealed.subarray(at, at + 7919));
  const out: Buffer[] = [];
  try {
    for await (const chunk of Readable.from(pieces).pipe(openingTransform(ring))) out.push(chunk as Buffer);
    return { plain: Buffer.concat(out) };
  } catch (error) {
    return { plain: Buffer.concat(out), error };
  }
}

describe('the sealed format', () => {
  it.each([0, 1, SEGMENT_BYTES - 1, SEGMENT_BYTES, SEGMENT_BYTES + 1, 3 * SEGMENT_BYTES, 1_000_000])(
    '%i bytes come back whole, as a buffer and as a stream',
    async (length) => {
      const plain = randomBytes(length);
      const sealed = sealWhole(keyring, plain);
      expect(openWhole(keyring, sealed).equals(plain)).toBe(true);
      expect((await openStreamed(sealed)).plain.equals(plain)).toBe(true);
    },
  );

  it('puts bytes in front of the plaintext in the same buffer', () => {
    expect(openWhole(keyring, sealWhole(keyring, Buffer.from('body')), Buffer.from('head:')).toString()).toBe('head:body');
  });

  it('never holds the plaintext: the same bytes sealed twice differ (a fresh data key each time)', () => {
    const plain = Buffer.from('Subject: Kontoauszug');
    const [a, b] = [sealWhole(keyring, plain), sealWhole(keyring, plain)];
    expect(a.equals(b)).toBe(false);
    expect(a.includes(plain)).toBe(false);
  });

  it('refuses one altered byte anywhere, and the stream hands on nothing of the altered segment', async () => {
    const plain = randomBytes(3 * SEGMENT_BYTES);
    const sealed = sealWhole(keyring, plain);
    for (const at of [5, 30, HEADER_BYTES + 10, HEADER_BYTES + SEGMENT_BYTES + TAG_BYTES + 1, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(() => openWhole(keyring, altered)).toThrow(SealBroken);
      const streamed = await openStreamed(altered);
      expect(streamed.error).toBeInstanceOf(SealBroken);
      expect(plain.subarray(0, streamed.plain.length).equals(streamed.plain)).toBe(true);
      expect(streamed.plain.length % SEGMENT_BYTES).toBe(0); // whole verified segments only
    }
  });

  it('catches a blob cut at a segment boundary, cut mid-segment, or with segments swapped', async () => {
    const sealed = sealWhole(keyring, randomBytes(3 * SEGMENT_BYTES + 10));
    const step = SEGMENT_BYTES + TAG_BYTES;
    const cuts = [
      sealed.subarray(0, HEADER_BYTES + 2 * step),
      sealed.subarray(0, sealed.length - 5),
      sealed.subarray(0, HEADER_BYTES),
      sealed.subarray(0, HEADER_BYTES + step + 5), // a few bytes into a segment: shorter than its tag
    ];
    const swapped = Buffer.concat([
      sealed.subarray(0, HEADER_BYTES),
      sealed.subarray(HEADER_BYTES + step, HEADER_BYTES + 2 * step),
      sealed.subarray(HEADER_BYTES, HEADER_BYTES + step),
      sealed.subarray(HEADER_BYTES + 2 * step),
    ]);
    for (const broken of [...cuts, swapped]) {
      expect(() => openWhole(keyring, broken)).toThrow(SealBroken);
      expect((await openStreamed(broken)).error).toBeInstanceOf(SealBroken);
    }
  });

  it('reads what an old key sealed once the keys rotate, and names a key it does not have', () => {
    const old = sealWhole(keyring, Buffer.from('before the rotation'));
    const rotated = keyringOf([OLD, NEW], 'test');
    expect(openWhole(rotated, old).toString()).toBe('before the rotation');
    const fresh = sealWhole(rotated, Buffer.from('after'));
    expect(fresh.subarray(4, 12).equals(rotated.writing.id)).toBe(true);
    expect(() => openWhole(keyring, fresh)).toThrow(/sealed under master key [0-9a-f]{16}, which is not among RAW_STORE_KEYS/);
  });

  it('refuses a plaintext message where a sealed one is expected', () => {
    expect(() => openWhole(keyring, Buffer.from('From: a@b.example\r\nSubject: x\r\n\r\n'.repeat(5)))).toThrow(/no LIS1 header/);
  });

  it('seals a stream byte for byte as the format says, however the chunks fall', async () => {
    // A fixed header and data key: the output is known in advance. The hash is that of what the
    // earlier sealing stream (which assembled each segment and joined it with its tag) wrote for the
    // same header, key and plaintext.
    const seal = fixedSeal();
    const plain = Buffer.alloc(3 * SEGMENT_BYTES + 5);
    for (let i = 0; i < plain.length; i++) plain[i] = i % 251;
    const reference = Buffer.concat([
      seal.header,
      ...[0, 1, 2, 3].map((i) => sealSegment(seal, i, i === 3, plain.subarray(i * SEGMENT_BYTES, (i + 1) * SEGMENT_BYTES))),
    ]);
    expect(createHash('sha256').update(reference).digest('hex')).toBe('410bb8450949a24cf2ab7be9defb5e5fee4a6973c5deb088767ac938ab5456f7');
    for (const step of [64 * 1024, 7919, 1000, SEGMENT_BYTES + 1, plain.length]) {
      const sealed = await sealedInSteps(seal, plain, step);
      expect(sealed.equals(reference)).toBe(true);
      expect(openWhole(keyring, sealed).equals(plain)).toBe(true);
    }
    for (const length of [0, 1, SEGMENT_BYTES, 2 * SEGMENT_BYTES]) {
      const sealed = await sealedInSteps(seal, plain.subarray(0, length), 4096);
      expect(openWhole(keyring, sealed).equals(plain.subarray(0, length))).toBe(true);
    }
  });
  it('hands back every wait of the inner write: a store that fails each piece fails the write, and no rejection goes unhandled', async () => {
    // An S3 upload that stalls answers each piece with a promise that later rejects; a segment is
    // several pieces (ciphertext, then the tag), so each of them must be awaited by someone.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const inner: RawWrite = {
        key: 'k.eml',
        buffered: 0,
        write: () => new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error('upload stalled')), 5)),
        commit: () => Promise.resolve(),
        abort: () => Promise.resolve(),
      };
      const write = sealingWriteWith(inner, fixedSeal());
      await expect(write.write(Buffer.alloc(3 * SEGMENT_BYTES, 1)) ?? Promise.resolve()).rejects.toThrow('upload stalled');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

/** A header and data key of fixed bytes under `keyring`'s key (newSeal draws them at random). */
function fixedSeal(): SealContext {
  const dataKey = Buffer.alloc(32, 7);
  const wrapNonce = Buffer.alloc(12, 8);
  const noncePrefix = Buffer.alloc(7, 9);
  const wrap = createCipheriv('aes-256-gcm', keyring.writing.key, wrapNonce);
  wrap.setAAD(Buffer.concat([MAGIC, keyring.writing.id]));
  const wrapped = Buffer.concat([wrap.update(dataKey), wrap.final()]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(SEGMENT_BYTES);
  const header = Buffer.concat([MAGIC, keyring.writing.id, wrapNonce, wrapped, wrap.getAuthTag(), noncePrefix, size]);
  return { header, keyId: keyring.writing.id, dataKey: createSecretKey(dataKey), noncePrefix, segmentBytes: SEGMENT_BYTES };
}

/** What a sealing write hands its inner write, given the plaintext in chunks of `step` bytes. */
async function sealedInSteps(seal: SealContext, plain: Buffer, step: number): Promise<Buffer> {
  const out: Buffer[] = [];
  const inner: RawWrite = {
    key: 'k.eml',
    buffered: 0,
    write: (piece) => {
      out.push(Buffer.from(piece));
      return undefined;
    },
    commit: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
  const write = sealingWriteWith(inner, seal);
  for (let at = 0; at < plain.length; at += step) await write.write(Buffer.from(plain.subarray(at, at + step)));
  await write.commit();
  return Buffer.concat(out);
}
