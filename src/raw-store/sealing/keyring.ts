// The raw store's master keys (RAW_STORE_KEY_FILE, RAW_STORE_KEY, RAW_STORE_KEYS): 32 bytes each,
// named by an id derived from the key itself (so no one has to name them), the last one writing
// and all of them reading, which is what a rotation needs.
import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface MasterKey {
  /** 8 bytes, derived from the key: written in each header, it picks the key that opens it. */
  readonly id: Buffer;
  /** A KeyObject: ciphers take it without probing it first (seal-format.ts, SealContext). */
  readonly key: KeyObject;
}

export interface Keyring {
  /** The key new blobs and markers are sealed under. */
  readonly writing: MasterKey;
  /** Every key, by its id in hex. */
  byId(id: Buffer): MasterKey | undefined;
  readonly ids: readonly string[];
}

export function keyIdOf(key: Buffer): Buffer {
  return createHash('sha256').update('letter-intake raw-store key id\0').update(key).digest().subarray(0, 8);
}

/** Keys in base64, old first; throws naming what is wrong with an entry (never the key). */
export function keyringOf(texts: readonly string[], source: string): Keyring {
  const keys = texts.map((text, i) => {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/]{43}=$/.test(text.trim())) {
      throw new Error(`${source}: entry ${i + 1} is not 32 bytes in base64 (openssl rand -base64 32)`);
    }
    return { id: keyIdOf(key), key: createSecretKey(key) };
  });
  const writing = keys.at(-1);
  if (writing === undefined) throw new Error(`${source}: no key`);
  const index = new Map(keys.map((k) => [k.id.toString('hex'), k]));
  return { writing, byId: (id) => index.get(id.toString('hex')), ids: [...index.keys()] };
}

/** The keys a file holds, one a line (blank lines and # comments skipped), the last one writing. */
export function keyringFromFile(path: string): Keyring {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  return keyringOf(lines, `RAW_STORE_KEY_FILE ${path}`);
}
