// A listener that cannot bind says which variable to change, instead of a bare EADDRINUSE stack.
import { StartupError } from '../errors.js';

const WHY: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is in use by another process',
  EACCES: 'the port needs privileges this process lacks (ports below 1024)',
  EADDRNOTAVAIL: 'the address is not one of this machine',
};

/** Awaits a part that listens on `address`; a bind failure becomes a StartupError naming `variable`. */
export async function listeningAs<T>(
  variable: string,
  address: { readonly host: string; readonly port: number },
  starting: Promise<T>,
): Promise<T> {
  try {
    return await starting;
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    const why = code === undefined ? undefined : WHY[code];
    if (why === undefined) throw err;
    throw new StartupError(`${variable}: cannot listen on ${address.host}:${address.port} (${code}: ${why}); choose another ${variable}`);
  }
}
