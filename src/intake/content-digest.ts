// The message's content digest, taken on the way to the spool: what the sender wrote, not how it
// travelled. A sha256 over a versioned serialization of
//   (a) the whole body in DKIM's relaxed body canonicalization (relaxed-body.ts), computed here,
//       whatever any signature's c=, a= or l= says, and
//   (b) the identity header fields (identity-fields.ts), relaxed-canonicalized, every instance,
//       in a fixed order, whatever any signature's h= lists.
// A relay that signs again, adds its own Received lines or a second signature leaves it as it was;
// a changed Subject, Date or PDF byte makes another. The scheme version is part of what is
// hashed, so the digest (and the intake id made from it) changes when the scheme does; records
// keep the id they were given and never recompute it. See docs/design.md §5.
import { createHash } from 'node:crypto';
import { identityFields } from './identity-fields.js';
import type { RawSpool } from './raw-spool.js';
import { RelaxedBody } from './relaxed-body.js';

/** 1: every DATA byte as sent. 2: the relaxed body and the identity header fields. */
export const CONTENT_DIGEST_SCHEME = 2;

export interface ContentDigest {
  readonly scheme: number;
  /** Hex sha256 of the scheme's serialization. */
  readonly sha256: string;
}

export interface DigestingSpool {
  readonly spool: RawSpool;
  /**
   * The digest, once every byte is written; `headerBlock` is the message's header block (the
   * bytes before the first empty line, as mime/header-block.ts reads them). Read it once.
   */
  digest(headerBlock: Buffer): ContentDigest;
}

export function withContentDigest(spool: RawSpool): DigestingSpool {
  const bodyHash = createHash('sha256');
  const body = new RelaxedBody((canonical) => bodyHash.update(canonical));
  const headerEnd = new HeaderEnd();
  return {
    spool: {
      write(chunk) {
        const bodyAt = headerEnd.bodyStartIn(chunk);
        if (bodyAt !== undefined && bodyAt < chunk.length) body.update(bodyAt === 0 ? chunk : chunk.subarray(bodyAt));
        return spool.write(chunk);
      },
      finish: () => spool.finish(),
      discard: () => spool.discard(),
      get buffered() {
        return spool.buffered;
      },
    },
    digest(headerBlock) {
      body.end();
      return contentDigestOf(identityFields(headerBlock), bodyHash.digest('hex'));
    },
  };
}

/** The serialization: JSON of the scheme, the fields and the canonical body's sha256 (unambiguous). */
export function contentDigestOf(fields: readonly (readonly [string, string])[], bodySha256: string): ContentDigest {
  const serialized = JSON.stringify({ scheme: CONTENT_DIGEST_SCHEME, fields, body: bodySha256 });
  return { scheme: CONTENT_DIGEST_SCHEME, sha256: createHash('sha256').update(serialized, 'utf8').digest('hex') };
}

const NOTHING = 0;
const AFTER_LF = 1;
const AFTER_LF_CR = 2;
const LF = 0x0a;
const CR = 0x0d;

/** Finds where the body begins: after the first empty line (LF, an optional CR, LF), across chunks. */
class HeaderEnd {
  private state = NOTHING;
  private found = false;

  /** The body's first byte in `chunk` (0 once the body has begun), or undefined while still in the header. */
  bodyStartIn(chunk: Buffer): number | undefined {
    if (this.found) return 0;
    let at = 0;
    while (at < chunk.length) {
      if (this.state === NOTHING) {
        const lf = chunk.indexOf(LF, at);
        if (lf < 0) return undefined;
        this.state = AFTER_LF;
        at = lf + 1;
        continue;
      }
      const byte = chunk[at];
      if (byte === LF) {
        this.found = true;
        return at + 1;
      }
      this.state = this.state === AFTER_LF && byte === CR ? AFTER_LF_CR : NOTHING;
      if (this.state === AFTER_LF_CR) at += 1;
    }
    return undefined;
  }
}
