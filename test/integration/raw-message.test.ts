// Where a worker finds an intake's message: its blob in the raw store, behind the recorded header lines.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRawStoreUrl } from '../../src/raw-store/location.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { loadRawMessage } from '../../src/raw-store/raw-message.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { freshRawStores, RAW_STORE_KINDS } from '../helpers/raw-stores.js';

const HEADERS = 'Authentication-Results: mx.intake.example; spf=pass\r\n';
const BODY = 'From: letters@acme.example\r\nSubject: a letter\r\n\r\nbody\r\n';

describe.each(RAW_STORE_KINDS)("reading an intake's message with the $name store", (kind) => {
  let store: RawStore;
  const open = freshRawStores(kind);
  const fresh = (): void => {
    store = open().store;
  };

  it('puts the recorded header lines in front of the stored blob', async () => {
    fresh();
    const write = store.begin();
    await write.write(Buffer.from(BODY));
    await write.commit();
    const message = await loadRawMessage(store, { intakeId: 'in1', rawKey: write.key, rawHeaders: HEADERS });
    expect(message).toEqual({ found: true, bytes: Buffer.from(HEADERS + BODY) });
  });

  it('says which blob is missing when the store has none under the key', async () => {
    fresh();
    const message = await loadRawMessage(store, {
      intakeId: 'in1',
      rawKey: '0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml',
      rawHeaders: HEADERS,
    });
    expect(message.found).toBe(false);
    expect(message.found ? '' : message.reason).toContain('0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml is missing from the raw store');
  });

  it('says the record names no message when it has no blob key', async () => {
    fresh();
    expect(await loadRawMessage(store, { intakeId: 'in-keyless' })).toEqual({
      found: false,
      reason: 'the record of in-keyless names no raw message',
    });
  });
});

describe('reading from a store that is away', () => {
  it('throws StorageUnavailable (a retry), never reports the message missing', async () => {
    const path = join(tmpdir(), `letter-intake-not-a-dir-${process.pid}-${Date.now()}`);
    writeFileSync(path, 'not a directory');
    const store = openRawStore({ location: parseRawStoreUrl(`file://${path}`), timeoutMs: 1000, s3PathStyle: false });
    await expect(loadRawMessage(store, { intakeId: 'in1', rawKey: '0b5c8f2e-9d1a-4c3b-8e7f-6a5b4c3d2e1f.eml' })).rejects.toMatchObject({
      code: 'StorageUnavailable',
    });
  });
});
