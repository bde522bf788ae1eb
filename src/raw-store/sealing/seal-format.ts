// The sealed format (docs/design.md §6): envelope encryption with a segmented AEAD.
//
//   header  = "LIS1" | master key id (8) | wrap nonce (12) | wrapped data key (32) | wrap tag (16)
//             | nonce prefix (7) | segment size (4, big-endian)                       = 83 bytes
//   then segments: AES-256-GCM(data key, nonce = prefix | counter (4, BE) | last (1)),
//             the whole header as associated data; each `segment size` bytes of plaintext + a 16-byte
//             tag, the last one shorter (possibly empty) and flagged.
//
// A fresh data key per blob or marker, wrapped (AES-256-GCM) by the master key the id names. The
// counter and the last flag in the nonce make a reordered, dropped or truncated segment fail its
// tag; the header as associated data binds every segment to this header. Pure but for randomness.
import { type CipherGCM, createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring.js';

export const MAGIC = Buffer.from('LIS1', 'latin1');
export const HEADER_BYTES = 83;
export const TAG_BYTES = 16;
export const SEGMENT_BYTES = 64 * 1024;

/** A blob or marker that does not open: tampered with, truncated, or sealed under a key we lack. */
export class SealBroken extends Error {
  override readonly name = 'SealBroken';
}

export interface SealContext {
  readonly header: Buffer;
  /** The master key's id the header names. */
  readonly keyId: Buffer;
  /**
   * A KeyObject, not bytes: given a Buffer, every createCipheriv first tries it as a KeyObject and
   * as a CryptoKey, each a thrown and caught TypeError in Node 24 (about 15 µs a segment).
   */
  readonly dataKey: KeyObject;
  readonly noncePrefix: Buffer;
  readonly segmentBytes: number;
}

export function newSeal(keyring: Keyring, segmentBytes = SEGMENT_BYTES): SealContext {
  const dataKey = randomBytes(32);
  const wrapNonce = randomBytes(12);
  const master = keyring.writing;
  const wrap = createCipheriv('aes-256-gcm', master.key, wrapNonce);
  wrap.setAAD(Buffer.concat([MAGIC, master.id]));
  const wrapped = Buffer.concat([wrap.update(dataKey), wrap.final()]);
  const noncePrefix = randomBytes(7);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(segmentBytes);
  const header = Buffer.concat([MAGIC, master.id, wrapNonce, wrapped, wrap.getAuthTag(), noncePrefix, size]);
  return { header, keyId: master.id, dataKey: secretKeyOf(dataKey), noncePrefix, segmentBytes };
}

/** The key as a KeyObject; the bytes given are zeroed (the KeyObject holds its own copy). */
export function secretKeyOf(bytes: Buffer): KeyObject {
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return key;
}

/** The master key id a header names, not verified (its first 12 bytes suffice), or undefined for anything else. */
export function namedKeyId(header: Buffer): Buffer | undefined {
  return header.length >= 12 && header.subarray(0, 4).equals(MAGIC) ? header.subarray(4, 12) : undefined;
}

/** The header's data key, unwrapped with the master key it names. */
export function openHeader(keyring: Keyring, header: Buffer): SealContext {
  const id = header.length < HEADER_BYTES ? undefined : namedKeyId(header);
  if (id === undefined) throw new SealBroken('not a sealed blob (no LIS1 header)');
  const master = keyring.byId(id);
  if (master === undefined) throw new SealBroken(`sealed under master key ${id.toString('hex')}, which is not among RAW_STORE_KEYS`);
  const unwrap = createDecipheriv('aes-256-gcm', master.key, header.subarray(12, 24));
  unwrap.setAAD(Buffer.concat([MAGIC, id]));
  unwrap.setAuthTag(header.subarray(56, 72));
  let dataKey: Buffer;
  try {
    dataKey = Buffer.concat([unwrap.update(header.subarray(24, 56)), unwrap.final()]);
  } catch {
    throw new SealBroken('the wrapped data key does not verify: the header was altered');
  }
  const segmentBytes = header.readUInt32BE(79);
  if (segmentBytes < 1 || segmentBytes > 16 * 1024 * 1024) throw new SealBroken('the header names an impossible segment size');
  return {
    header: header.subarray(0, HEADER_BYTES),
    keyId: id,
    dataKey: secretKeyOf(dataKey),
    noncePrefix: header.subarray(72, 79),
    segmentBytes,
  };
}

function nonceOf(seal: SealContext, counter: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  seal.noncePrefix.copy(nonce, 0);
  nonce.writeUInt32BE(counter, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** The cipher of one segment: what it is given is that segment's plaintext, in order; then final() and the tag. */
export function segmentCipher(seal: SealContext, counter: number, last: boolean): CipherGCM {
  if (counter > 0xffff_ffff) throw new Error('a sealed blob holds at most 2^32 segments');
  const cipher = createCipheriv('aes-256-gcm', seal.dataKey, nonceOf(seal, counter, last));
  cipher.setAAD(seal.header);
  return cipher;
}

export function sealSegment(seal: SealContext, counter: number, last: boolean, plain: Uint8Array): Buffer {
  const cipher = segmentCipher(seal, counter, last);
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

export function openSegment(seal: SealContext, counter: number, last: boolean, sealed: Uint8Array): Buffer {
  if (sealed.length < TAG_BYTES) throw new SealBroken(`segment ${counter} is cut short`);
  const decipher = createDecipheriv('aes-256-gcm', seal.dataKey, nonceOf(seal, counter, last));
  decipher.setAAD(seal.header);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
    const rest = decipher.final();
    // GCM's final() adds no bytes: the segment is not copied a second time to join them.
    return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
  } catch {
    throw new SealBroken(`segment ${counter}${last ? ' (the last)' : ''} does not verify: altered, reordered or truncated`);
  }
}

/** A whole buffer sealed (markers, tests): header and every segment. */
export function sealWhole(keyring: Keyring, plain: Uint8Array): Buffer {
  const seal = newSeal(keyring);
  const parts = [seal.header];
  let counter = 0;
  for (let at = 0; ; at += seal.segmentBytes, counter++) {
    const last = at + seal.segmentBytes >= plain.length;
    parts.push(sealSegment(seal, counter, last, plain.subarray(at, at + seal.segmentBytes)));
    if (last) break;
  }
  return Buffer.concat(parts);
}

/** A whole sealed buffer opened, every segment verified; `front` goes before the plaintext in the same buffer. */
export function openWhole(keyring: Keyring, sealed: Buffer, front: Uint8Array = Buffer.alloc(0)): Buffer {
  const seal = openHeader(keyring, sealed);
  const step = seal.segmentBytes + TAG_BYTES;
  const body = sealed.length - HEADER_BYTES;
  if (body < TAG_BYTES) throw new SealBroken('the blob ends before its first segment');
  const segments = Math.max(1, Math.ceil(body / step));
  // A last segment shorter than its tag is a cut blob: said before the output is sized from it.
  if (body - (segments - 1) * step < TAG_BYTES) throw new SealBroken('the blob is cut inside a segment');
  const out = Buffer.allocUnsafe(front.length + body - segments * TAG_BYTES);
  out.set(front, 0);
  let written = front.length;
  for (let i = 0; i < segments; i++) {
    const start = HEADER_BYTES + i * step;
    const plain = openSegment(seal, i, i === segments - 1, sealed.subarray(start, Math.min(start + step, sealed.length)));
    out.set(plain, written);
    written += plain.length;
  }
  return out.subarray(0, written);
}
