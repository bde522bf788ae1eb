// CSRF tokens (OWASP's synchronizer token, stateless form): a token is the HMAC of what binds the
// browser — its session id, or before sign-in its pre-session cookie — under a key every portal
// process shares through Redis (made once, SET NX: nothing to configure first). A form carries it
// as `_csrf`; the multipart upload form carries it in its action's query too, so it is checked
// before a byte of the body is read.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '../redis/connections.js';
import type { PortalKeys } from './keys.js';

export interface Csrf {
  token(binding: string): string;
  valid(binding: string, token: string | undefined): boolean;
}

export async function portalCsrf(redis: RedisClient, keys: PortalKeys): Promise<Csrf> {
  await redis.set(keys.secret, randomBytes(32).toString('base64'), 'NX');
  const secret = await redis.get(keys.secret);
  if (secret === null) throw new Error('the portal key could not be read from Redis');
  const key = Buffer.from(secret, 'base64');
  const token = (binding: string): string => createHmac('sha256', key).update(`csrf:${binding}`).digest('base64url');
  return {
    token,
    valid(binding, given) {
      if (given === undefined || binding === '') return false;
      const expected = Buffer.from(token(binding));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
