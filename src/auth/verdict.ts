// The intake authentication policy (docs/design.md §2.3) as a pure function: an AuthSummary in, a
// verdict out, with each check's result kept for the intake record.
//
// A message passes only when all four checks pass:
//   from       exactly one From address in exactly one From field;
//   spf        SPF `pass` for the envelope domain (MAIL FROM, or HELO for the null sender);
//   alignment  that SPF domain is aligned with the From domain;
//   dkim       a DKIM signature with result `pass`, aligned with the From domain, whose l= (if
//              any) covers the whole body, and whose selector is one the sender lists (when its
//              directory entry lists dkimSelectors). mailauth's own `aligned` flag is not used:
//              it is set even for signatures that failed.
// Outcome: a failed check → `fail` (550 5.7.1). Otherwise a check that hit a DNS temperror →
// `temporary` (451 4.7.0): the sender's MTA retries. A definite failure wins over a temporary
// one, since retrying cannot change it. The From check comes first: without one From domain
// there is nothing to align with, so alignment and DKIM are then `skipped`.
import { type AlignmentMode, isAligned } from './alignment.js';
import type { AuthSummary, DkimSignatureSummary, SpfSummary } from './summary.js';

export interface AuthPolicy {
  /** Identifier alignment; docs/design.md §2.3 asks for relaxed (same organizational domain). */
  readonly alignment: AlignmentMode;
  /** The From sender's own DKIM selectors (lower-cased): only a signature with one of them counts. */
  readonly dkimSelectors?: readonly string[] | undefined;
}

export const DEFAULT_AUTH_POLICY: AuthPolicy = Object.freeze({ alignment: 'relaxed' });

export type CheckOutcome = 'pass' | 'fail' | 'temporary' | 'skipped';

export interface CheckResult {
  readonly outcome: CheckOutcome;
  /** One sentence naming the check and the domain, e.g. "SPF pass for acme.example from 127.0.0.1". */
  readonly detail: string;
}

export interface AuthChecks {
  readonly from: CheckResult;
  readonly spf: CheckResult;
  /** SPF domain aligned with the From domain. */
  readonly alignment: CheckResult;
  /** A passing, From-aligned DKIM signature that covers the whole body. */
  readonly dkim: CheckResult;
}

export type AuthVerdict =
  | { readonly outcome: 'pass'; readonly checks: AuthChecks }
  | { readonly outcome: 'fail'; readonly reason: string; readonly checks: AuthChecks }
  | { readonly outcome: 'temporary'; readonly reason: string; readonly checks: AuthChecks };

export function judgeAuthentication(auth: AuthSummary, policy: AuthPolicy = DEFAULT_AUTH_POLICY): AuthVerdict {
  const spf = checkSpf(auth.spf);
  const author = singleAuthor(auth);
  if (!author.ok) {
    const skipped = result('skipped', 'not judged: needs exactly one From address');
    return { outcome: 'fail', reason: author.check.detail, checks: { from: author.check, spf, alignment: skipped, dkim: skipped } };
  }
  const { domain } = author;
  const checks: AuthChecks = {
    from: result('pass', `one From address, ${author.address}`),
    spf,
    alignment: checkSpfAlignment(auth.spf, domain, policy.alignment),
    dkim: checkDkim(auth.dkim, domain, policy.alignment, policy.dkimSelectors),
  };
  const judged = [checks.spf, checks.alignment, checks.dkim];
  const failed = judged.filter((c) => c.outcome === 'fail');
  if (failed.length > 0) return { outcome: 'fail', reason: sentences(failed), checks };
  const temporary = judged.filter((c) => c.outcome === 'temporary');
  if (temporary.length > 0) return { outcome: 'temporary', reason: sentences(temporary), checks };
  return { outcome: 'pass', checks };
}

type Author =
  | { readonly ok: true; readonly address: string; readonly domain: string }
  | { readonly ok: false; readonly check: CheckResult };

/** The single From address and its domain, or the failed `from` check. */
function singleAuthor(auth: AuthSummary): Author {
  const failed = (detail: string): Author => ({ ok: false, check: result('fail', detail) });
  // RFC 5322 §3.6: exactly one From field; DMARC (RFC 7489 §6.6.1) cannot judge several authors.
  if (auth.fromFields > 1) return failed(`the message has ${auth.fromFields} From header fields; exactly one is allowed`);
  const [address, ...others] = auth.fromAddresses;
  if (address === undefined) return failed('the From header holds no address; exactly one is required');
  if (others.length > 0) {
    const all = auth.fromAddresses.join(', ');
    return failed(`the From header holds ${auth.fromAddresses.length} addresses (${all}); exactly one is required`);
  }
  const domain = domainOf(address);
  if (domain === '') return failed(`the From address ${address} has no domain`);
  return { ok: true, address, domain };
}

function checkSpf(spf: SpfSummary): CheckResult {
  if (spf.domain === '') return result('fail', `SPF ${spf.result}: no envelope domain to check`);
  const who = spf.identity === 'helo' ? `HELO name ${spf.domain}` : spf.domain;
  const detail = `SPF ${spf.result} for ${who} from ${spf.clientIp}`;
  if (spf.result === 'pass') return result('pass', detail);
  if (spf.result === 'temperror') return result('temporary', `${detail} (DNS lookup failed)`);
  return result('fail', detail);
}

function checkSpfAlignment(spf: SpfSummary, fromDomain: string, mode: AlignmentMode): CheckResult {
  if (spf.domain === '') return result('fail', `no SPF domain to align with ${fromDomain}`);
  const aligned = isAligned(spf.domain, fromDomain, mode);
  return result(aligned ? 'pass' : 'fail', `SPF domain ${spf.domain} is ${aligned ? '' : 'not '}aligned with ${fromDomain} (${mode})`);
}

function checkDkim(
  signatures: readonly DkimSignatureSummary[],
  fromDomain: string,
  mode: AlignmentMode,
  selectors: readonly string[] | undefined,
): CheckResult {
  // Only an aligned signature over the whole body, with a listed selector, could make the message pass.
  const listed = (s: DkimSignatureSummary): boolean => selectors === undefined || selectors.includes(s.selector.toLowerCase());
  const candidates = signatures.filter((s) => s.coversWholeBody && isAligned(s.signingDomain, fromDomain, mode) && listed(s));
  const passing = candidates.find((s) => s.result === 'pass');
  if (passing !== undefined) {
    return result('pass', `DKIM pass for d=${passing.signingDomain} s=${passing.selector}, aligned with ${fromDomain}`);
  }
  const pending = candidates.find((s) => s.result === 'temperror');
  if (pending !== undefined) {
    const why = pending.comment === undefined ? '' : ` (${pending.comment})`;
    return result('temporary', `DKIM key for d=${pending.signingDomain} s=${pending.selector} could not be fetched${why}`);
  }
  const found =
    signatures.length === 0
      ? 'none, the message is not signed'
      : signatures.map((s) => describe(s, fromDomain, mode, selectors)).join('; ');
  if (selectors === undefined) return result('fail', `no passing DKIM signature aligned with ${fromDomain} (found: ${found})`);
  return result(
    'fail',
    `no passing DKIM signature aligned with ${fromDomain} with a selector the sender lists (listed: ${selectors.join(', ')}; found: ${found})`,
  );
}

function describe(
  signature: DkimSignatureSummary,
  fromDomain: string,
  mode: AlignmentMode,
  selectors: readonly string[] | undefined,
): string {
  const { signingDomain, selector, result: outcome, comment, bodyLengthTag, coversWholeBody } = signature;
  // With pinned selectors each signature's selector is named: it may be the reason it does not count.
  const signer = selectors === undefined ? `d=${signingDomain}` : `d=${signingDomain} s=${selector}`;
  const parts = [`${signer} ${outcome}${outcome !== 'pass' && comment !== undefined ? ` (${comment})` : ''}`];
  if (!isAligned(signingDomain, fromDomain, mode)) parts.push('unaligned');
  if (!coversWholeBody) parts.push(`l=${bodyLengthTag ?? '?'} leaves part of the body unsigned`);
  if (selectors !== undefined && !selectors.includes(selector.toLowerCase())) parts.push(`selector ${selector} not listed`);
  return parts.join(', ');
}

function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0
    ? ''
    : address
        .slice(at + 1)
        .trim()
        .toLowerCase()
        .replace(/\.+$/, '');
}

function sentences(checks: readonly CheckResult[]): string {
  return checks.map((c) => c.detail).join('; ');
}

function result(outcome: CheckOutcome, detail: string): CheckResult {
  return { outcome, detail };
}
