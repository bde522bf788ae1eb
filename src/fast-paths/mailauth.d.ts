// Replaces: mailauth 7.1's own index.d.ts, for the private lib/ modules the boundary uses.
// Proved by: test/unit/dkim-body-hash-equivalence.test.ts (fails if these internals change meaning).
//
// The mailauth calls this project makes, typed as the library really behaves.
//
// mailauth ships index.d.ts, but it types the injected DNS resolver as returning
// `string[][] | string[]` (wrong for MX answers, which are objects, so an honest
// `Promise<unknown>` resolver would need a cast) and requires top-level signing fields that
// dkimSign ignores when `signatureData` is given. So src/fast-paths (alone in src/), fixtures/
// and the test helpers import the implementation files directly and declare only what they use
// here. Results are typed
// `unknown`: auth/mailauth-result.ts validates every field it reads.
// (A script file, not a module: these `declare module` blocks are ambient declarations.)

declare module 'mailauth/lib/mailauth.js' {
  export interface AuthenticateOptions {
    /** Client IP address of the SMTP session. */
    readonly ip: string;
    /** EHLO/HELO name. */
    readonly helo: string;
    /** Envelope MAIL FROM; '' for the null sender (SPF then checks the HELO domain). */
    readonly sender: string;
    /** Our host name, the authserv-id of Authentication-Results. */
    readonly mta: string;
    /** Answers like dns.promises.resolve; errors carry `code` (ENOTFOUND, ENODATA, ETIMEOUT, ...). */
    readonly resolver: (name: string, rrtype: string) => Promise<unknown>;
    readonly disableArc: boolean;
    readonly disableBimi: boolean;
    readonly disableDmarc: boolean;
    /** Never true on an MX: Received/Return-Path are the sender's claims. */
    readonly trustReceived: false;
    /** Bound on the whole SPF evaluation in ms; temperror when exceeded. */
    readonly maxElapsedTime?: number;
  }
  export function authenticate(input: Buffer | string | NodeJS.ReadableStream, options: AuthenticateOptions): Promise<unknown>;
}

declare module 'mailauth/lib/tools.js' {
  /** Streams a Buffer (64 KB chunks), a string or a readable into `stream`, resolving when it finished. */
  export function writeToStream(stream: NodeJS.WritableStream, input: Buffer | string | NodeJS.ReadableStream): Promise<void>;
  /** RFC 8601 authserv-id: a token as is, else quoted; throws when empty or too long. */
  export function formatAuthservId(mta: string, strict: boolean): string;
  /** The key record of `name`, parsed and imported (publicKey as PEM). */
  export function getPublicKey(
    type: string,
    name: string,
    minBitLength: number | undefined,
    resolver: (name: string, rrtype: string) => Promise<unknown>,
    options: { readonly strict?: boolean; readonly hashAlgo?: string },
  ): Promise<{ readonly publicKey: string; readonly [field: string]: unknown }>;
  export function toALabel(name: string): string;
  /**
   * The entry of `domainList` aligned with `fromDomain`, or false. Relaxed (default): same
   * organizational domain by the Public Suffix List (tldts); strict: identical domains.
   */
  export function getAlignment(fromDomain: string, domainList: readonly string[], strict?: boolean): { readonly domain: string } | false;
}

declare module 'mailauth/lib/dkim/sign.js' {
  export interface DkimSignatureData {
    readonly signingDomain: string;
    readonly selector: string;
    /** PEM private key (RSA or Ed25519). */
    readonly privateKey: string;
    readonly algorithm?: 'rsa-sha256' | 'ed25519-sha256';
    readonly canonicalization?: string;
    /** Body bytes covered (the l= tag), counted after body canonicalization. */
    readonly maxBodyLength?: number;
  }
  export interface DkimSignOptions {
    readonly canonicalization?: string;
    /** Becomes t=; fixed in fixtures so signatures are reproducible. */
    readonly signTime: Date;
    readonly headerList?: readonly string[];
    readonly signatureData: readonly DkimSignatureData[];
  }
  export interface DkimSignResult {
    /** DKIM-Signature header fields to prepend, each ending in CRLF. */
    readonly signatures: string;
    readonly errors: readonly unknown[];
  }
  export function dkimSign(input: Buffer | string, options: DkimSignOptions): Promise<DkimSignResult>;
}

// The DKIM verifier's inside, for fast-dkim-verifier.ts, which subclasses it to hash
// bodies on whole chunks and to share parsed keys between messages (7.1.x; the equivalence test
// in test/unit/dkim-body-hash-equivalence.test.ts fails if these internals change meaning).
declare module 'mailauth/lib/dkim/body/relaxed.js' {
  export class RelaxedHash {
    constructor(algorithm: string, maxBodyLength: number | '' | undefined);
    /** The start of an unfinished line kept from the previous chunk, or false. */
    protected remainder: Buffer | false;
    /** Source body bytes seen. */
    byteLength: number;
    /** Canonicalized body bytes in total, and those hashed (≤ l=). */
    readonly canonicalizedLength: number;
    readonly bodyHashedBytes: number;
    /** Hashes bytes that are already canonical, holding back trailing empty lines. */
    protected _pushBodyHash(chunk: Buffer): void;
    update(chunk: Buffer | null, final?: boolean): void;
    digest(encoding: 'base64'): string;
  }
}

declare module 'mailauth/lib/dkim/body/index.js' {
  export interface BodyHasher {
    byteLength: number;
    readonly canonicalizedLength: number;
    readonly bodyHashedBytes: number;
    update(chunk: Buffer | null, final?: boolean): void;
    digest(encoding: 'base64'): string;
  }
  export function dkimBody(canonicalization: string, algorithm: string, maxBodyLength: number | '' | undefined): BodyHasher;
}

declare module 'mailauth/lib/dkim/dkim-verifier.js' {
  import type { Writable } from 'node:stream';
  import type { BodyHasher } from 'mailauth/lib/dkim/body/index.js';

  /** mailauth's per-message key lookup cache (tools.createKeyCache); get() takes getPublicKey's arguments. */
  export interface KeyCache {
    readonly resolver: (name: string, rrtype: string) => Promise<unknown>;
    get(
      type: string,
      name: string,
      minBitLength: number | undefined,
      options: { readonly strict?: boolean; readonly hashAlgo?: string },
    ): Promise<unknown>;
  }
  export interface DkimVerifierOptions {
    readonly resolver: (name: string, rrtype: string) => Promise<unknown>;
    readonly sender?: string;
    readonly strict?: boolean;
  }
  export class DkimVerifier extends Writable {
    constructor(options: DkimVerifierOptions);
    protected keyCache: KeyCache;
    readonly arc: { keyCache?: KeyCache };
    protected readonly bodyHashes: Map<string, BodyHasher>;
    /** Last byte of the previous chunk, for telling a bare LF at a chunk's start. */
    protected lastByte: number | undefined;
    /** Rewrites bare LF to CRLF, chunk by chunk. */
    protected ensureLinebreaks(input: Buffer): Generator<Buffer, void, undefined>;
    /** Registers a body hasher per canonicalization, hash and l=, and returns its key. */
    protected addBodyHash(bodyCanon: string, hashAlgo: string, maxBodyLength: number | ''): string;
    readonly headerFrom: string[];
    readonly fromFields: number;
    readonly envelopeFrom: string | false;
    readonly results: unknown[];
    readonly headers: { readonly parsed: readonly { readonly key: string; readonly line: Buffer }[] } | false;
  }
}

declare module 'mailauth/lib/dkim/verify.js' {
  export function dkimVerify(
    input: Buffer | string | NodeJS.ReadableStream,
    options: { readonly resolver: (name: string, rrtype: string) => Promise<unknown>; readonly sender?: string },
  ): Promise<{ readonly results: unknown[] }>;
}

declare module 'mailauth/lib/spf/index.js' {
  export function spf(options: Readonly<Record<string, unknown>>): Promise<{ readonly info: string; readonly header: string } | false>;
}

declare module 'mailauth/lib/parse-received.js' {
  export function parseReceived(line: Buffer): unknown;
}
