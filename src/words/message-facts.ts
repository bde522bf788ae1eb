// The facts the message's own rules judge (docs/design.md §2.4), as both readers produce them: the
// listener's streaming MIME walk while the bytes arrive, and the worker's mailparser result.
// Both follow mailparser's reading of the structure, so they produce the same facts.

/** How many decoded bytes of each attachment are kept: enough for the %PDF- signature. */
export const FIRST_BYTES = 8;

/** One attachment, as mailparser lists them (every leaf part that is not inline body text). */
export interface PartFacts {
  /** The media type, lower-cased, without parameters (mailparser's guess for octet-stream). */
  readonly contentType: string;
  readonly fileName: string | undefined;
  /** The first FIRST_BYTES decoded bytes (fewer when the part is shorter). */
  readonly firstBytes: Buffer;
  readonly decodedBytes: number;
}

export interface MessageFacts {
  /** The authenticated From address ('' when there is not exactly one). */
  readonly from: string;
  readonly subject: string;
  readonly parts: readonly PartFacts[];
}

/** mailparser may hand back a whole malformed header value (`application/pdf name="x"`). */
export function declaredType(contentType: string): string {
  return (contentType.split(/[;\s]/)[0] ?? '').toLowerCase();
}
