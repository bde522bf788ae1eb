// The upload form's one-time token: made when the form is shown, claimed by its first submit, and
// then naming the intake that submit made. A second submit of the same form (a double click, a
// reload) finds the intake instead of making another.
import { randomBytes } from 'node:crypto';
import { luaScript } from '../intake/lua-script.js';
import type { RedisClient } from '../redis/connections.js';
import { type PortalKeys, sha256 } from './keys.js';

const CLAIM_FORM_TOKEN = luaScript(new URL('./scripts/claim-form-token-1.lua', import.meta.url));

const FORM_MS = 24 * 3600 * 1000;
const OPEN = 'open';
const BUSY = 'busy';

export type Claim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'done'; readonly intakeId: string }
  | { readonly kind: 'busy' | 'unknown' };

export class FormTokens {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: PortalKeys,
  ) {}

  /** A new token: the time it was made (base 36), a dot, and 18 random bytes. */
  async issue(userId: string, now: number = Date.now()): Promise<string> {
    const token = `${now.toString(36)}.${randomBytes(18).toString('base64url')}`;
    await this.redis.set(this.keys.formToken(sha256(`${userId}:${token}`)), OPEN, 'PX', FORM_MS);
    return token;
  }

  /** The first submit claims the token; later ones learn what it made (or that it is under way). */
  async claim(userId: string, token: string): Promise<Claim> {
    const key = this.keys.formToken(sha256(`${userId}:${token}`));
    const claimed = await CLAIM_FORM_TOKEN(this.redis, key, OPEN, BUSY);
    const value: unknown = Array.isArray(claimed) ? claimed[0] : undefined;
    if (value === 'claimed') return { kind: 'claimed' };
    if (value === BUSY) return { kind: 'busy' };
    if (typeof value === 'string' && value !== '') return { kind: 'done', intakeId: value };
    return { kind: 'unknown' };
  }

  /** The claimed token names its intake, or (refused) opens again so the corrected form can be sent. */
  async settle(userId: string, token: string, intakeId: string | undefined): Promise<void> {
    await this.redis.set(this.keys.formToken(sha256(`${userId}:${token}`)), intakeId ?? OPEN, 'PX', FORM_MS);
  }
}

/** When a token was made (its own first part), or undefined for a token of another shape. */
export function issuedAtOf(token: string): number | undefined {
  const [time, rest] = token.split('.');
  if (time === undefined || rest === undefined || !/^[0-9a-z]{1,11}$/.test(time)) return undefined;
  return Number.parseInt(time, 36);
}
