// The mailauth calls this project makes, typed as the library really behaves.
//
// mailauth ships index.d.ts, but it types the injected DNS resolver as returning
// `string[][] | string[]` (wrong for MX answers, which are objects, so an honest
// `Promise<unknown>` resolver would need a cast) and requires top-level signing fields that
// dkimSign ignores when `signatureData` is given. So src/auth and fixtures/ import the
// implementation files directly and declare only what they use here. Results are typed
// `unknown`: mailauth-result.ts validates every field it reads.
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
  /**
   * The entry of `domainList` aligned with `fromDomain`, or false. Relaxed (default): same
   * organizational domain by the Public Suffix List (tldts); strict: identical domains.
   */
  export function getAlignment(
    fromDomain: string,
    domainList: readonly string[],
    strict?: boolean,
  ): { readonly domain: string } | false;
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
