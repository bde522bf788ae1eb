// The one DNS function type every check receives (as in mailauth: shaped like
// dns.promises.resolve), the live implementation with bounded waits, and the error shape that
// mailauth reads. mailauth maps the error `code`: ENOTFOUND / ENODATA mean "no such record"
// (SPF none, DKIM "no key"); anything else (ETIMEOUT, ESERVFAIL, ...) is a temperror, which
// the verdict turns into 451 4.7.0.
import { promises as dns } from 'node:dns';

/** Answers like dns.promises.resolve(name, rrtype): TXT as string[][] (≤255-char chunks), MX as {exchange, priority}[], A/AAAA as string[]. */
export type DnsResolver = (name: string, rrtype: string) => Promise<unknown>;

/** Codes as node:dns (c-ares) reports them. */
export type DnsErrorCode = 'ENOTFOUND' | 'ENODATA' | 'ETIMEOUT' | 'ESERVFAIL' | 'EREFUSED' | 'EDENIED';

export class DnsError extends Error {
  override readonly name = 'DnsError';

  constructor(
    readonly code: DnsErrorCode,
    readonly hostname: string,
    readonly rrtype: string,
  ) {
    super(`query ${rrtype} ${hostname}: ${code}`);
  }
}

export interface LiveResolverOptions {
  /** Time-out of one query attempt (DNS_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Attempts per query (DNS_TRIES); the worst wait is timeoutMs × tries, then ETIMEOUT. */
  readonly tries: number;
  /** Name servers to ask instead of the system's (tests point this at a loopback server). */
  readonly servers?: readonly string[];
}

/** Live DNS with a bound on every query, so a dead name server cannot stall an SMTP session. */
export function createLiveResolver(options: LiveResolverOptions): DnsResolver {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs, tries: options.tries });
  if (options.servers !== undefined) resolver.setServers([...options.servers]);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}
