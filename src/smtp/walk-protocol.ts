// The messages between the listener and its MIME walk thread (walk-thread.ts, walk-pool.ts).
import type { PartFacts } from '../policy/message-facts.js';

export type ToWalkThread =
  | { readonly op: 'start'; readonly id: number }
  | { readonly op: 'chunk'; readonly id: number; readonly chunk: Uint8Array }
  | { readonly op: 'end'; readonly id: number }
  | { readonly op: 'abort'; readonly id: number };

/** A Buffer crosses a thread as a Uint8Array: firstBytes is made a Buffer again on arrival. */
export type WirePart = Omit<PartFacts, 'firstBytes'> & { readonly firstBytes: Uint8Array };

export type FromWalkThread =
  /** `bytes` of the walk's input were taken: the listener may send that much more. */
  | { readonly op: 'ack'; readonly id: number; readonly bytes: number }
  | { readonly op: 'walked'; readonly id: number; readonly subject: string; readonly parts: readonly WirePart[] }
  | { readonly op: 'unparseable'; readonly id: number; readonly why: string }
  | { readonly op: 'failed'; readonly id: number; readonly message: string };
