// Encryption at rest as a layer around any raw store (docs/design.md §6): every blob and marker
// written is sealed (seal-format.ts), every one read is opened, verified before a byte of it is
// handed on. What does not open (tampered, truncated, sealed under a key not configured, or a
// plaintext blob where sealed ones are expected) throws SealBroken, which the worker turns into
// an operator alert and a failed intake, and housekeeping into an alert and a kept blob: never a
// letter. Deleting and listing pass through.
import { PassThrough, type Readable } from 'node:stream';
import type { MarkerKind, RawStore } from '../raw-store.js';
import type { Keyring } from './keyring.js';
import { namedKeyId, openWhole, SealBroken, sealWhole } from './seal-format.js';
import { openingTransform, sealingWrite } from './seal-stream.js';

/** Marker bodies are text: a sealed one is this prefix and the sealed bytes in base64. */
const MARKER_PREFIX = 'sealed1:';

/** The master key id a sealed marker's header names (not verified), or undefined for any other text. */
export function markerKeyId(text: string): Buffer | undefined {
  if (!text.startsWith(MARKER_PREFIX)) return undefined;
  // 16 base64 characters are the header's first 12 bytes, which name the key.
  return namedKeyId(Buffer.from(text.slice(MARKER_PREFIX.length, MARKER_PREFIX.length + 16), 'base64'));
}

const markerAad = (kind: MarkerKind, id: string): Buffer => Buffer.from(`${kind}/${id}\n`, 'utf8');

/** A marker's body sealed, as stored. The marker's kind and id are sealed with it, so a marker copied under another name does not open. */
export function sealMarker(keyring: Keyring, kind: MarkerKind, id: string, body: string): string {
  return `${MARKER_PREFIX}${sealWhole(keyring, Buffer.concat([markerAad(kind, id), Buffer.from(body, 'utf8')])).toString('base64')}`;
}

/** A stored marker opened; SealBroken, naming the marker, when it does not open. */
export function openMarker(keyring: Keyring, kind: MarkerKind, id: string, text: string): string {
  try {
    if (!text.startsWith(MARKER_PREFIX)) throw new SealBroken('a plaintext marker where sealed ones are expected');
    const plain = openWhole(keyring, Buffer.from(text.slice(MARKER_PREFIX.length), 'base64'));
    const aad = markerAad(kind, id);
    if (!plain.subarray(0, aad.length).equals(aad)) throw new SealBroken(`sealed for another marker than ${kind}/${id}`);
    return plain.subarray(aad.length).toString('utf8');
  } catch (err) {
    return broken(`marker ${kind}/${id}`, err);
  }
}

/** The error, naming what did not open (never its contents). */
function broken(what: string, err: unknown): never {
  if (err instanceof SealBroken) throw new SealBroken(`${what}: ${err.message}`);
  throw err;
}

export function sealedRawStore(inner: RawStore, keyring: Keyring): RawStore {
  const versions = inner.keepsOldVersions;
  return {
    ...(versions === undefined ? {} : { keepsOldVersions: () => versions() }),
    location: inner.location,
    begin: () => sealingWrite(inner.begin(), keyring),
    async replace(key) {
      const write = await inner.replace(key);
      return write === undefined ? undefined : sealingWrite(write, keyring);
    },
    async read(key) {
      const stream = await inner.read(key);
      if (stream === undefined) return undefined;
      const opening = openingTransform(keyring);
      const out = new PassThrough();
      stream.on('error', (err) => out.destroy(err));
      opening.on('error', (err) => out.destroy(err instanceof SealBroken ? new SealBroken(`blob ${key}: ${err.message}`) : err));
      return stream.pipe(opening).pipe(out) as Readable;
    },
    async readBuffer(key, front) {
      const sealed = await inner.readBuffer(key);
      if (sealed === undefined) return undefined;
      try {
        return openWhole(keyring, sealed, front);
      } catch (err) {
        return broken(`blob ${key}`, err);
      }
    },
    delete: (key) => inner.delete(key),
    listOlderThan: (before) => inner.listOlderThan(before),
    putMarker: (kind, id, body, mode) => inner.putMarker(kind, id, sealMarker(keyring, kind, id, body), mode),
    async replaceMarker(kind, id, was, body) {
      const stored = await inner.getMarker(kind, id);
      if (stored === undefined || openMarker(keyring, kind, id, stored) !== was) return 'gone';
      return inner.replaceMarker(kind, id, stored, sealMarker(keyring, kind, id, body));
    },
    exclusiveCreate: () => inner.exclusiveCreate(),
    keepsTimesOnReplace: inner.keepsTimesOnReplace,
    async getMarker(kind, id) {
      const text = await inner.getMarker(kind, id);
      return text === undefined ? undefined : openMarker(keyring, kind, id, text);
    },
    deleteMarker: (kind, id) => inner.deleteMarker(kind, id),
    listMarkers: (kind) => inner.listMarkers(kind),
    check: () => inner.check(),
    close: () => inner.close(),
  };
}
