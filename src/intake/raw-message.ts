// The raw message a worker parses: the stored DATA bytes with our Authentication-Results and
// Received-SPF in front. Intakes accepted since the raw store read their blob (and the header
// lines from the record); intakes accepted before it still find their whole message in Redis.
import type { RawStore } from '../raw-store/raw-store.js';

export interface RawMessageSource {
  /** Absent in a process that reads no messages (a record pointing at a blob then throws). */
  readonly rawStore: RawStore | undefined;
  /** The whole message from Redis, for intakes accepted before the raw store. */
  readonly legacy: (intakeId: string) => Promise<Buffer | undefined>;
}

/** What a record says about where its message is. */
export interface RawMessageRef {
  readonly intakeId: string;
  /** The blob key in the raw store (absent: the message is in Redis). */
  readonly rawKey?: string | undefined;
  /** Header lines to put in front of the blob. */
  readonly rawHeaders?: string | undefined;
}

export type RawMessage = { readonly found: true; readonly bytes: Buffer } | { readonly found: false; readonly reason: string };

/** Finds the message; a store that is away throws (StorageUnavailable: the job is retried). */
export async function loadRawMessage(source: RawMessageSource, ref: RawMessageRef): Promise<RawMessage> {
  if (ref.rawKey === undefined) {
    const bytes = await source.legacy(ref.intakeId);
    return bytes === undefined
      ? { found: false, reason: 'the raw message is no longer in Redis (accepted before the raw store, and expired or deleted)' }
      : { found: true, bytes };
  }
  const { rawStore } = source;
  if (rawStore === undefined) throw new Error('this process has no raw store to read messages from');
  const bytes = await rawStore.readBuffer(ref.rawKey, Buffer.from(ref.rawHeaders ?? '', 'utf8'));
  if (bytes === undefined) {
    return { found: false, reason: `the raw message ${ref.rawKey} is missing from the raw store ${rawStore.location}` };
  }
  return { found: true, bytes };
}
