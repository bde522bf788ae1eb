// A self-signed certificate for a test, made by openssl in `dir`: CN and subjectAltName are
// `host` (an IP address or a DNS name), valid for `days`.
import { execFileSync } from 'node:child_process';
import { isIP } from 'node:net';
import { join } from 'node:path';

export function selfSignedCertificate(dir: string, name: string, host: string, days = 1): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const altName = `${isIP(host) === 0 ? 'DNS' : 'IP'}:${host}`;
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', String(days)].concat([
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=${altName}`,
    ]),
    { stdio: 'ignore' },
  );
  return { cert, key };
}
