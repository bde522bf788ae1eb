// MTA-STS (RFC 8461) and TLS-RPT (RFC 8460) for each processing domain: the `_mta-sts` TXT record
// names an id (the one of the policy served, or senders keep an older policy up to max_age), every
// MX record matches a policy `mx` name and is covered by the STARTTLS certificate (an enforcing
// MTA refuses a host it cannot verify), and `_smtp._tls` asks for reports.
import { X509Certificate } from 'node:crypto';
import { type MtaStsSettings, mtaStsPolicyId, mxMatches } from '../mta-sts/policy.js';
import type { Lookup } from './dns-lookup.js';
import { mxExchanges, txtStrings } from './dns-lookup.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'MTA-STS';

export interface MtaStsFacts {
  readonly domain: string;
  readonly stsTxt: Lookup;
  readonly mx: Lookup;
  readonly tlsRptTxt: Lookup;
  /** The STARTTLS certificate (PEM), when TLS_CERT_FILE is set and readable. */
  readonly certPem: string | undefined;
}

const failure = (answer: Extract<Lookup, { kind: 'error' }>) => `DNS lookup failed (${answer.code})`;

export function judgeMtaSts(settings: MtaStsSettings | undefined, facts: MtaStsFacts): CheckResult[] {
  const { domain } = facts;
  if (settings === undefined) {
    return [warn(AREA, `policy of ${domain}`, 'MTA_STS_MODE unset: a sender whose STARTTLS is stripped delivers in clear text')];
  }
  return [judgeStsRecord(settings, facts), ...judgeMxNames(settings, facts), judgeTlsRpt(facts)];
}

function judgeStsRecord(settings: MtaStsSettings, { domain, stsTxt }: MtaStsFacts): CheckResult {
  const name = `_mta-sts.${domain}`;
  const id = mtaStsPolicyId(settings);
  if (stsTxt.kind === 'error') return warn(AREA, name, failure(stsTxt));
  const records = stsTxt.kind === 'none' ? [] : txtStrings(stsTxt.records).filter((t) => /^v=STSv1\s*(;|$)/.test(t));
  if (records.length === 0) return fail(AREA, name, `no v=STSv1 record: senders never fetch the policy; publish "v=STSv1; id=${id}"`);
  if (records.length > 1) return fail(AREA, name, `${records.length} v=STSv1 records: senders ignore them all (RFC 8461 §3.1); keep one`);
  const published = /(?:^|;)\s*id=([A-Za-z0-9]{1,32})\s*(;|$)/.exec(records[0] ?? '')?.[1];
  if (published === undefined) return fail(AREA, name, `no valid id= (1–32 letters and digits); publish "v=STSv1; id=${id}"`);
  if (published !== id) {
    return warn(
      AREA,
      name,
      `id=${published}, while the policy served now is id=${id}: when the policy changes, change the id, or senders keep the old one up to max_age`,
    );
  }
  return ok(AREA, name, `v=STSv1; id=${id} (${settings.mode})`);
}

function judgeMxNames(settings: MtaStsSettings, { domain, mx, certPem }: MtaStsFacts): CheckResult[] {
  const name = `policy mx of ${domain}`;
  if (mx.kind === 'error') return [warn(AREA, name, failure(mx))];
  const exchanges = mx.kind === 'none' ? [] : mxExchanges(mx.records);
  if (exchanges.length === 0) return [fail(AREA, name, 'no MX record to match the policy against')];
  const unmatched = exchanges.filter((host) => !settings.mx.some((pattern) => mxMatches(pattern, host)));
  const results = [
    unmatched.length === 0
      ? ok(AREA, name, `${exchanges.join(', ')} match ${settings.mx.join(', ')}`)
      : fail(
          AREA,
          name,
          `MX ${unmatched.join(', ')} matches no MTA_STS_MX name (${settings.mx.join(', ')}): ${settings.mode === 'enforce' ? 'senders refuse to deliver there' : 'senders report failures'}; add it to MTA_STS_MX`,
        ),
  ];
  if (certPem === undefined) {
    results.push(fail(AREA, `certificate for ${domain}'s MX`, 'no STARTTLS certificate (TLS_CERT_FILE): an MTA-STS sender cannot deliver'));
    return results;
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    results.push(fail(AREA, `certificate for ${domain}'s MX`, 'TLS_CERT_FILE is not a PEM certificate'));
    return results;
  }
  const uncovered = exchanges.filter((host) => cert.checkHost(host) === undefined);
  results.push(
    uncovered.length === 0
      ? ok(AREA, `certificate for ${domain}'s MX`, `covers ${exchanges.join(', ')}`)
      : fail(
          AREA,
          `certificate for ${domain}'s MX`,
          `does not cover ${uncovered.join(', ')} (it is for ${cert.subjectAltName ?? cert.subject}): MTA-STS senders refuse that host`,
        ),
  );
  return results;
}

function judgeTlsRpt({ domain, tlsRptTxt }: MtaStsFacts): CheckResult {
  const name = `_smtp._tls.${domain}`;
  if (tlsRptTxt.kind === 'error') return warn(AREA, name, failure(tlsRptTxt));
  const records = tlsRptTxt.kind === 'none' ? [] : txtStrings(tlsRptTxt.records).filter((t) => /^v=TLSRPTv1\s*(;|$)/.test(t));
  if (records.length !== 1) {
    return warn(
      AREA,
      name,
      `${records.length === 0 ? 'no' : records.length} v=TLSRPTv1 record${records.length > 1 ? 's' : ''}: no one hears of senders' failed TLS; publish one "v=TLSRPTv1; rua=mailto:…" (RFC 8460 §3)`,
    );
  }
  const rua = /(?:^|;)\s*rua=([^;]+)/.exec(records[0] ?? '')?.[1]?.trim();
  if (rua === undefined) return warn(AREA, name, 'v=TLSRPTv1 without rua=: reports go nowhere');
  return ok(AREA, name, `reports to ${rua}`);
}
