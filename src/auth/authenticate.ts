// The mailauth adapter: DKIM and SPF for one message, with the SMTP session's facts and an
// injected DNS resolver, reduced to an AuthSummary. It decides nothing (verdict.ts does).
//
// mailauth options, and why:
// - trustReceived off: Received and Return-Path are the sending client's claims on an MX.
// - ARC off: the policy does not accept forwarded mail on the strength of an ARC chain.
// - BIMI off: it can fetch logos and certificates over HTTPS; an intake MX must not.
// - DMARC off: the intake policy (docs/design.md §2.3) is stricter than DMARC and decides alignment
//   itself; DMARC would only add _dmarc DNS queries and rewrite mailauth's `aligned` flags.
// mailauth runs through the fast-paths boundary: its own authenticate(), or (FAST_PATHS=on) the
// same checks with DKIM body hashing over whole chunks and keys parsed once per record.
import { authenticateWithMailauth, type DkimKeyCache } from '../fast-paths/index.js';
import type { DnsResolver } from '../net/resolver.js';
import { summarizeMailauthResult } from './mailauth-result.js';
import type { AuthSummary } from './summary.js';

export interface AuthContext {
  /** Client IP address of the SMTP session. */
  readonly ip: string;
  /** EHLO/HELO name. */
  readonly helo: string;
  /** Envelope MAIL FROM; '' for the null sender. */
  readonly sender: string;
  /** Our host name (the authserv-id in Authentication-Results). */
  readonly mta: string;
}

export interface AuthenticateOptions {
  /**
   * Bound on the whole SPF evaluation; past it SPF is temperror (→ 451). Default 20 s,
   * RFC 7208 §4.6.4: "at least 20 seconds". Each DNS query is bounded by the resolver too.
   */
  readonly spfTimeLimitMs?: number;
  /** DKIM keys parsed once and shared across messages (fast-paths: createDkimKeyCache); default: per message. */
  readonly keyCache?: DkimKeyCache | undefined;
}

const SPF_TIME_LIMIT_MS = 20_000;

/** Consumes `message` once (a Buffer or the DATA stream) and reports what DKIM and SPF found. */
export async function authenticateMessage(
  message: Buffer | NodeJS.ReadableStream,
  ctx: AuthContext,
  resolver: DnsResolver,
  options: AuthenticateOptions = {},
): Promise<AuthSummary> {
  const result = await authenticateWithMailauth(
    message,
    { ip: ctx.ip, helo: ctx.helo, sender: ctx.sender, mta: ctx.mta, resolver, maxElapsedTime: options.spfTimeLimitMs ?? SPF_TIME_LIMIT_MS },
    options.keyCache,
  );
  return summarizeMailauthResult(result, ctx);
}
