// The raw message a worker parses: the stored DATA bytes with our Authentication-Results and
// Received-SPF in front, read from the record's blob in the raw store and its header lines.
import type { RawStore } from '../raw-store/raw-store.js';

export interface RawMessageSource {
  /** Absent in a process that reads no messages (a record pointing at a blob then throws). */
  readonly rawStore: RawStore | undefined;
}

/** What a record says about where its message is. */
export interface RawMessageRef {
  readonly intakeId: string;
  /** The blob key in the raw store (CREATE writes it with the record). */
  readonly rawKey?: string | undefined;
  /** Header lines to put in front of the blob. */
  readonly rawHeaders?: string | undefined;
}

export type RawMessage = { readonly found: true; readonly bytes: Buffer } | { readonly found: false; readonly reason: string };

/** Finds the message; a store that is away throws (StorageUnavailable: the job is retried). */
export async function loadRawMessage(source: RawMessageSource, ref: RawMessageRef): Promise<RawMessage> {
  if (ref.rawKey === undefined) return { found: false, reason: `the record of ${ref.intakeId} names no raw message` };
  const { rawStore } = source;
  if (rawStore === undefined) throw new Error('this process has no raw store to read messages from');
  const bytes = await rawStore.readBuffer(ref.rawKey, Buffer.from(ref.rawHeaders ?? '', 'utf8'));
  if (bytes === undefined) {
    return { found: false, reason: `the raw message ${ref.rawKey} is missing from the raw store ${rawStore.location}` };
  }
  return { found: true, bytes };
}
