// The dashboard login check, in constant time: both sides are hashed to SHA-256 first so
// timingSafeEqual always compares equal-length buffers and the time taken says nothing about
// the length or the content of the expected user and password.
import { createHash, timingSafeEqual } from 'node:crypto';

export interface DashboardLogin {
  readonly user: string;
  readonly password: string;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export interface LoginVerdict {
  readonly ok: boolean;
  /** The user name is the configured one (whatever the password): failures are counted under it. */
  readonly userMatches: boolean;
}

export function credentialsChecker(expected: DashboardLogin): (user: string, password: string) => LoginVerdict {
  const userDigest = digest(expected.user);
  const passwordDigest = digest(expected.password);
  return (user, password) => {
    // Both comparisons always run: no early exit on a wrong user name.
    const userOk = timingSafeEqual(digest(user), userDigest);
    const passwordOk = timingSafeEqual(digest(password), passwordDigest);
    return { ok: userOk && passwordOk, userMatches: userOk };
  };
}
