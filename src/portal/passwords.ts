// Password hashing with scrypt at OWASP's recommended cost (Password Storage Cheat Sheet: N=2^17,
// r=8, p=1), its parameters stored with the hash so they can be raised later. A check against an
// unknown user runs against a dummy hash, so it costs the same time as a wrong password.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export const MIN_PASSWORD_CHARS = 12;
/** A passphrase longer than this is refused (it would only cost hashing time). */
export const MAX_PASSWORD_CHARS = 1024;
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128 × N × r bytes; Node's default maxmem (32 MiB) is below OWASP's cost
    scrypt(password, salt, KEY_BYTES, { ...params, maxmem: 256 * 1024 * 1024 }, (err, key) => (err === null ? resolve(key) : reject(err)));
  });
}

/** Why a new password is not taken, or undefined. */
export function passwordProblem(password: string, confirm: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_CHARS) return `The password must have at least ${MIN_PASSWORD_CHARS} characters.`;
  if (password.length > MAX_PASSWORD_CHARS) return `The password may have at most ${MAX_PASSWORD_CHARS} characters.`;
  if (password !== confirm) return 'The two passwords differ.';
  return undefined;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

let dummy: Promise<string> | undefined;

/** True when `password` matches `stored`; without a stored hash, the same work against a dummy, then false. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  const target = stored ?? (await dummy);
  const [scheme, n, r, p, salt, key] = target.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password.slice(0, MAX_PASSWORD_CHARS), Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
