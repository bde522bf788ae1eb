// The message's content digest, taken on the way to the spool: a sha256 of exactly the bytes
// that are stored (the DATA bytes as the client sent them, before we prepend our own
// Authentication-Results). It makes the intake id tell a corrected letter from a re-delivery.
import { createHash } from 'node:crypto';
import type { RawSpool } from './raw-spool.js';

export interface DigestingSpool {
  readonly spool: RawSpool;
  /** Hex sha256 of every byte written so far; read it once all bytes are written. */
  digest(): string;
}

export function withContentDigest(spool: RawSpool): DigestingSpool {
  const hash = createHash('sha256');
  return {
    spool: {
      write(chunk) {
        hash.update(chunk);
        return spool.write(chunk);
      },
      finish: () => spool.finish(),
      discard: () => spool.discard(),
      get buffered() {
        return spool.buffered;
      },
    },
    digest: () => hash.copy().digest('hex'),
  };
}
