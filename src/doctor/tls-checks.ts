// STARTTLS material: the key belongs to the certificate, the certificate names SMTP_HOSTNAME,
// and it is not about to expire (senders' MTAs may refuse or fall back to clear text).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'TLS';
const DAY_MS = 24 * 3600 * 1000;
/** Renew before this: certificate automation usually renews at 30 days left. */
export const EXPIRY_WARN_DAYS = 21;

export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  readonly certFile: string;
}

export function judgeTls(material: TlsMaterial | undefined, hostname: string, now: number): CheckResult[] {
  if (material === undefined) {
    return [
      warn(
        AREA,
        'STARTTLS',
        'not offered (TLS_KEY_FILE and TLS_CERT_FILE unset): mail arrives in clear text; give a certificate for SMTP_HOSTNAME',
      ),
    ];
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(material.certPem);
  } catch (err) {
    return [
      fail(AREA, 'certificate', `${material.certFile} is not a PEM certificate (${err instanceof Error ? err.message : String(err)})`),
    ];
  }
  const results: CheckResult[] = [];
  try {
    results.push(
      cert.checkPrivateKey(createPrivateKey(material.keyPem))
        ? ok(AREA, 'key matches certificate', material.certFile)
        : fail(AREA, 'key matches certificate', 'TLS_KEY_FILE is not the key of TLS_CERT_FILE: STARTTLS will fail; give the matching pair'),
    );
  } catch (err) {
    results.push(
      fail(
        AREA,
        'key matches certificate',
        `TLS_KEY_FILE cannot be read as a private key (${err instanceof Error ? err.message : String(err)})`,
      ),
    );
  }
  results.push(
    cert.checkHost(hostname) !== undefined
      ? ok(AREA, 'covers SMTP_HOSTNAME', hostname)
      : fail(
          AREA,
          'covers SMTP_HOSTNAME',
          `the certificate is for ${cert.subjectAltName ?? cert.subject}, not ${hostname}: verifying MTAs refuse it`,
        ),
  );
  const validTo = Date.parse(cert.validTo);
  const days = Math.floor((validTo - now) / DAY_MS);
  const until = new Date(validTo).toISOString().slice(0, 10);
  if (validTo <= now) results.push(fail(AREA, 'expiry', `expired on ${until}: renew the certificate`));
  else if (Date.parse(cert.validFrom) > now) results.push(fail(AREA, 'expiry', `not valid before ${cert.validFrom}`));
  else if (days < EXPIRY_WARN_DAYS) results.push(warn(AREA, 'expiry', `${days} days left (until ${until}): renew it`));
  else results.push(ok(AREA, 'expiry', `${days} days left (until ${until})`));
  return results;
}
