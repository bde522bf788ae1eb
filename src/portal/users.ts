// Portal users: made by an operator for one sender, a one-time set-password link, a password hash,
// and the second factor (a TOTP secret and hashed backup codes). One Redis hash per user.
import { randomBytes, randomUUID } from 'node:crypto';
import { luaScript } from '../intake/lua-script.js';
import type { RedisClient } from '../redis/connections.js';
import { type PortalKeys, sha256 } from './keys.js';

const SWAP_BACKUP_CODES = luaScript(new URL('./scripts/swap-backup-codes-1.lua', import.meta.url));

/** How long a set-password link works. */
export const INVITE_MS = 24 * 3600 * 1000;

export interface PortalUser {
  readonly userId: string;
  readonly senderId: string;
  readonly email: string;
  readonly createdAt: number;
  readonly passwordHash: string | undefined;
  readonly disabled: boolean;
  /** The TOTP secret (base32) once verified; two-factor sign-in is on while it is set. */
  readonly totpSecret: string | undefined;
  /** A secret shown on the setup page and not yet verified. */
  readonly totpPending: string | undefined;
  /** sha256 of each unused backup code. */
  readonly backupCodes: readonly string[];
}

function userOf(hash: Record<string, string>): PortalUser | undefined {
  const { userId, senderId, email } = hash;
  if (userId === undefined || senderId === undefined || email === undefined) return undefined;
  return {
    userId,
    senderId,
    email,
    createdAt: Number(hash.createdAt ?? 0),
    passwordHash: hash.passwordHash,
    disabled: hash.disabled === '1',
    totpSecret: hash.totpSecret,
    totpPending: hash.totpPending,
    backupCodes: hash.backupCodes === undefined ? [] : (JSON.parse(hash.backupCodes) as string[]),
  };
}

export type AddResult =
  | { readonly ok: true; readonly user: PortalUser; readonly token: string }
  | { readonly ok: false; readonly reason: string };

export class PortalUsers {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: PortalKeys,
  ) {}

  async get(userId: string): Promise<PortalUser | undefined> {
    return userOf(await this.redis.hgetall(this.keys.user(userId)));
  }

  async byEmail(email: string): Promise<PortalUser | undefined> {
    const userId = await this.redis.get(this.keys.email(email.trim()));
    return userId === null ? undefined : this.get(userId);
  }

  async list(): Promise<PortalUser[]> {
    const ids = await this.redis.smembers(this.keys.users);
    const users = await Promise.all(ids.map((id) => this.get(id)));
    return users.filter((u): u is PortalUser => u !== undefined).sort((a, b) => a.email.localeCompare(b.email));
  }

  /** A new user and its first set-password token; an address already in use is refused. */
  async add(senderId: string, email: string, now: number): Promise<AddResult> {
    const address = email.trim().toLowerCase();
    const userId = randomUUID();
    const claimed = await this.redis.set(this.keys.email(address), userId, 'NX');
    if (claimed !== 'OK') return { ok: false, reason: `a portal user with the address ${address} exists` };
    await this.redis.hset(this.keys.user(userId), { userId, senderId, email: address, createdAt: String(now) });
    await this.redis.sadd(this.keys.users, userId);
    const user = await this.get(userId);
    if (user === undefined) return { ok: false, reason: 'the user could not be read back' };
    return { ok: true, user, token: await this.invite(userId) };
  }

  /** A one-time set-password token for the user (a new link for a forgotten password). */
  async invite(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(this.keys.invite(sha256(token)), userId, 'PX', INVITE_MS);
    return token;
  }

  /** The user a token is for, while it is valid (not used, not expired, the user enabled). */
  async invited(token: string): Promise<PortalUser | undefined> {
    const userId = await this.redis.get(this.keys.invite(sha256(token)));
    const user = userId === null ? undefined : await this.get(userId);
    return user?.disabled === false ? user : undefined;
  }

  /** Uses the token (once: GETDEL) and sets the password hash. */
  async setPassword(token: string, passwordHash: string): Promise<PortalUser | undefined> {
    const userId = await this.redis.getdel(this.keys.invite(sha256(token)));
    const user = userId === null ? undefined : await this.get(userId);
    if (user === undefined || user.disabled) return undefined;
    await this.redis.hset(this.keys.user(user.userId), { passwordHash });
    return user;
  }

  /** Sets the password hash directly (the demo's user, made with a printed password). */
  async resetPassword(userId: string, passwordHash: string): Promise<void> {
    await this.redis.hset(this.keys.user(userId), { passwordHash });
  }

  async disable(email: string): Promise<PortalUser | undefined> {
    const user = await this.byEmail(email);
    if (user === undefined) return undefined;
    await this.redis.hset(this.keys.user(user.userId), { disabled: '1' });
    return user;
  }

  async setTotpPending(userId: string, secret: string): Promise<void> {
    await this.redis.hset(this.keys.user(userId), { totpPending: secret });
  }

  /** Two-factor sign-in on: the verified secret and the backup codes' hashes. */
  async enableTotp(userId: string, secret: string, backupCodeHashes: readonly string[]): Promise<void> {
    await this.redis.hset(this.keys.user(userId), { totpSecret: secret, backupCodes: JSON.stringify(backupCodeHashes) });
    await this.redis.hdel(this.keys.user(userId), 'totpPending');
  }

  /** Uses one backup code: true when it was unused (then it is gone). */
  async useBackupCode(userId: string, codeHash: string): Promise<boolean> {
    const user = await this.get(userId);
    if (user === undefined || !user.backupCodes.includes(codeHash)) return false;
    // WATCH/MULTI would need one connection per call; a code used twice at the same instant is
    // still one backup code: the list is rewritten only when it still holds the code.
    const left = user.backupCodes.filter((c) => c !== codeHash);
    const swapped = await SWAP_BACKUP_CODES(this.redis, this.keys.user(userId), JSON.stringify(user.backupCodes), JSON.stringify(left));
    return swapped === 1;
  }
}
