// Replaces: mailauth 7.1's DkimVerifier (lib/dkim/dkim-verifier.js) as dkimVerify() runs it, by subclassing.
// Proved by: test/unit/dkim-body-hash-equivalence.test.ts (its DkimVerifier on the same chunks).
//
// mailauth's DKIM verifier with two costs taken out of the per-message path, and nothing else
// changed: bare-LF rewriting and relaxed body hashing run over whole chunks (line-breaks.ts,
// relaxed-body-hash.ts), and key records come from a cache shared by all messages
// (parsed-key-cache.ts) instead of being parsed and imported again for every message.
// "simple" body hashing stays mailauth's SimpleHash: it already works on whole chunks.
import { type BodyHasher, dkimBody } from 'mailauth/lib/dkim/body/index.js';
import { DkimVerifier, type DkimVerifierOptions, type KeyCache } from 'mailauth/lib/dkim/dkim-verifier.js';
import { writeToStream } from 'mailauth/lib/tools.js';
import { bareLineFeedsToCrlf } from './line-breaks.js';
import { FastRelaxedHash } from './relaxed-body-hash.js';

export class FastDkimVerifier extends DkimVerifier {
  constructor(options: DkimVerifierOptions, keyCache: KeyCache | undefined) {
    super(options);
    if (keyCache !== undefined) {
      this.keyCache = keyCache;
      this.arc.keyCache = keyCache;
    }
  }

  protected override *ensureLinebreaks(input: Buffer): Generator<Buffer, void, undefined> {
    const previous = this.lastByte;
    this.lastByte = input[input.length - 1];
    yield bareLineFeedsToCrlf(input, previous);
  }

  protected override addBodyHash(bodyCanon: string, hashAlgo: string, maxBodyLength: number | ''): string {
    const key = [bodyCanon, hashAlgo, maxBodyLength].join(':'); // mailauth's key format
    if (!this.bodyHashes.has(key)) this.bodyHashes.set(key, bodyHasher(bodyCanon, hashAlgo, maxBodyLength));
    return key;
  }
}

function bodyHasher(bodyCanon: string, hashAlgo: string, maxBodyLength: number | ''): BodyHasher {
  // ensureLinebreaks() above has made every bare LF a CRLF before any body hasher sees it
  return bodyCanon === 'relaxed'
    ? new FastRelaxedHash(hashAlgo, maxBodyLength, { lineEndsAreCrlf: true })
    : dkimBody(bodyCanon, hashAlgo, maxBodyLength);
}

/** What mailauth's dkimVerify() returns, from the fast verifier. */
export interface DkimVerification {
  readonly headerFrom: string[];
  readonly fromFields: number;
  readonly envelopeFrom: string | false;
  readonly results: unknown[];
  /** Parsed header lines (not enumerable, as in mailauth). */
  readonly headers?: Exclude<FastDkimVerifier['headers'], false>;
}

/** mailauth's dkimVerify() (lib/dkim/verify.js) on the fast verifier. */
export async function verifyDkim(
  input: Buffer | string | NodeJS.ReadableStream,
  options: DkimVerifierOptions,
  keyCache?: KeyCache,
): Promise<DkimVerification> {
  const verifier = new FastDkimVerifier(options, keyCache);
  await writeToStream(verifier, input);
  const result = {
    headerFrom: verifier.headerFrom,
    fromFields: verifier.fromFields,
    envelopeFrom: verifier.envelopeFrom,
    results: verifier.results,
  };
  if (verifier.headers !== false) Object.defineProperty(result, 'headers', { enumerable: false, value: verifier.headers });
  return result;
}
