// An intake's message as the worker parses it: the stored DATA bytes with our
// Authentication-Results and Received-SPF in front, read from the blob a record names (its
// `rawKey`) and the header lines it keeps (`rawHeaders`). The record itself is intake/'s; this
// takes only what it says about the message.
import type { RawStore } from './raw-store.js';

/** What a record says about where its message is. */
export interface RawMessageRef {
  readonly intakeId: string;
  /** The blob key in the raw store (written with the record). */
  readonly rawKey?: string | undefined;
  /** Header lines to put in front of the blob. */
  readonly rawHeaders?: string | undefined;
}

export type RawMessage = { readonly found: true; readonly bytes: Buffer } | { readonly found: false; readonly reason: string };

/** Finds the message, or says why it is missing; a store that is away throws (StorageUnavailable: the caller retries). */
export async function loadRawMessage(rawStore: RawStore, ref: RawMessageRef): Promise<RawMessage> {
  if (ref.rawKey === undefined) return { found: false, reason: `the record of ${ref.intakeId} names no raw message` };
  const bytes = await rawStore.readBuffer(ref.rawKey, Buffer.from(ref.rawHeaders ?? '', 'utf8'));
  if (bytes === undefined) {
    return { found: false, reason: `the raw message ${ref.rawKey} is missing from the raw store ${rawStore.location}` };
  }
  return { found: true, bytes };
}

/** The message's bytes, or undefined when the record names none or its blob is gone. */
export async function rawMessageBytes(rawStore: RawStore, ref: RawMessageRef): Promise<Buffer | undefined> {
  const message = await loadRawMessage(rawStore, ref);
  return message.found ? message.bytes : undefined;
}
