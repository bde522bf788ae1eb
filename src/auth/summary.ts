// What authentication found, reduced to the facts the verdict and the intake record use.
// Produced by authenticate.ts from mailauth's result; judged by verdict.ts.

/** RFC 7208 §2.6 results. */
export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror';

/** RFC 8601 §2.7.1 results as mailauth reports them (lenient mode reports a bad body hash as neutral). */
export type DkimResult = 'pass' | 'fail' | 'neutral' | 'policy' | 'temperror' | 'permerror' | 'none';

export interface SpfSummary {
  /** The domain SPF checked: the MAIL FROM domain, or the HELO name for the null sender (RFC 7208 §2.4). */
  readonly domain: string;
  /** Which identity `domain` comes from. */
  readonly identity: 'mailfrom' | 'helo';
  readonly result: SpfResult;
  readonly clientIp: string;
  /** mailauth's explanation, if any. */
  readonly comment: string | undefined;
}

export interface DkimSignatureSummary {
  /** d= */
  readonly signingDomain: string;
  /** s= */
  readonly selector: string;
  /** a=, e.g. rsa-sha256 */
  readonly algorithm: string;
  readonly result: DkimResult;
  /** Why it did not pass (e.g. "body hash did not verify", "DNS failure: ETIMEOUT"), if mailauth says. */
  readonly comment: string | undefined;
  /** The l= tag: body bytes covered, counted after canonicalization; undefined without l=. */
  readonly bodyLengthTag: number | undefined;
  /** False when an l= tag left part of the body unsigned, so content may have been appended. */
  readonly coversWholeBody: boolean;
}

export interface AuthSummary {
  /** Addresses of the From header field(s), as addr-specs (RFC 5322 §3.6.2). */
  readonly fromAddresses: readonly string[];
  /** Number of From header fields; RFC 5322 §3.6 allows exactly one. */
  readonly fromFields: number;
  readonly spf: SpfSummary;
  /** One entry per DKIM-Signature mailauth evaluated; empty for an unsigned message. */
  readonly dkim: readonly DkimSignatureSummary[];
  /** Received-SPF and Authentication-Results fields, CRLF-terminated, to prepend to the stored message. */
  readonly headers: string;
}
