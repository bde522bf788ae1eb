// The STARTTLS key and certificate (TLS_KEY_FILE, TLS_CERT_FILE), checked before use: a pair that
// does not belong together is refused at start and on a reload (the loaded pair then stays), never
// handed to a session that would fail its handshake.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { StartupError } from '../errors.js';
import { type Reloadable, reloadableFiles } from '../support/reloadable.js';

export interface TlsPair {
  readonly key: Buffer;
  readonly cert: Buffer;
}

/** Throws, naming the variable, unless `cert` is a PEM certificate whose key is `key`. */
export function checkedTlsPair(key: Buffer | undefined, cert: Buffer | undefined): TlsPair {
  if (key === undefined || cert === undefined) throw new StartupError('TLS_KEY_FILE, TLS_CERT_FILE: both are needed');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    throw new StartupError(`TLS_CERT_FILE is not a PEM certificate (${err instanceof Error ? err.message : String(err)})`);
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new StartupError(`TLS_KEY_FILE is not a private key (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!matches) throw new StartupError('TLS_KEY_FILE is not the key of TLS_CERT_FILE');
  createSecureContext({ key, cert }); // what smtp-server does with them: it must not throw later
  return { key, cert };
}

export function reloadableTls(
  files: { readonly keyFile: string; readonly certFile: string },
  clock: () => number,
  onSwap: (pair: TlsPair) => void,
): Reloadable<TlsPair> {
  return reloadableFiles({
    files: [files.keyFile, files.certFile],
    parse: ([key, cert]) => checkedTlsPair(key, cert),
    unreadable: (file, err) =>
      new StartupError(
        `${file === files.keyFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      ),
    clock,
    onSwap,
  });
}
