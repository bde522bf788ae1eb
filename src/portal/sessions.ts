// Portal sessions (OWASP Session Management): a random id in an HttpOnly cookie, stored as its
// sha256; 12 hours of inactivity end it (every request extends it); a new id at every sign-in step
// and password change; a user's sessions listed (when, from where, which browser) and ended together.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/connections.js';
import { type PortalKeys, sha256 } from './keys.js';

export const SESSION_IDLE_MS = 12 * 3600 * 1000;

/** `password`: the password was right and a second factor is due; `full`: signed in. */
export type SessionStage = 'password' | 'full';

export interface PortalSession {
  /** sha256 of the cookie's id: what the list and the audit log name. */
  readonly hash: string;
  readonly userId: string;
  readonly stage: SessionStage;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly ip: string;
  readonly userAgent: string;
}

export interface SessionOrigin {
  readonly ip: string;
  readonly userAgent: string;
}

export class PortalSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: PortalKeys,
    private readonly clock: () => number,
  ) {}

  /** A new session (its cookie value is returned once); `replaces` ends the one it follows. */
  async create(userId: string, stage: SessionStage, origin: SessionOrigin, replaces?: string): Promise<{ id: string; hash: string }> {
    if (replaces !== undefined) await this.end(replaces);
    const id = randomBytes(32).toString('base64url');
    const hash = sha256(id);
    const now = this.clock();
    const key = this.keys.session(hash);
    await this.redis
      .multi()
      .hset(key, {
        userId,
        stage,
        createdAt: String(now),
        lastSeenAt: String(now),
        ip: origin.ip,
        userAgent: origin.userAgent.slice(0, 300),
      })
      .pexpire(key, SESSION_IDLE_MS)
      .sadd(this.keys.userSessions(userId), hash)
      .exec();
    return { id, hash };
  }

  /** The session of a cookie value, extended by this activity; undefined when expired or unknown. */
  async touch(id: string): Promise<PortalSession | undefined> {
    const hash = sha256(id);
    const session = await this.read(hash);
    if (session === undefined) return undefined;
    const key = this.keys.session(hash);
    await this.redis.multi().hset(key, 'lastSeenAt', String(this.clock())).pexpire(key, SESSION_IDLE_MS).exec();
    return session;
  }

  private async read(hash: string): Promise<PortalSession | undefined> {
    const h = await this.redis.hgetall(this.keys.session(hash));
    if (h.userId === undefined || (h.stage !== 'password' && h.stage !== 'full')) return undefined;
    return {
      hash,
      userId: h.userId,
      stage: h.stage,
      createdAt: Number(h.createdAt),
      lastSeenAt: Number(h.lastSeenAt),
      ip: h.ip ?? '',
      userAgent: h.userAgent ?? '',
    };
  }

  /** Ends a session by its hash. */
  async end(hash: string): Promise<void> {
    const session = await this.read(hash);
    await this.redis.del(this.keys.session(hash));
    if (session !== undefined) await this.redis.srem(this.keys.userSessions(session.userId), hash);
  }

  /** The user's live sessions, newest activity first (expired ones leave the set here). */
  async list(userId: string): Promise<PortalSession[]> {
    const hashes = await this.redis.smembers(this.keys.userSessions(userId));
    const sessions = await Promise.all(hashes.map(async (hash) => ({ hash, session: await this.read(hash) })));
    const gone = sessions.filter((s) => s.session === undefined).map((s) => s.hash);
    if (gone.length > 0) await this.redis.srem(this.keys.userSessions(userId), ...gone);
    return sessions.flatMap((s) => (s.session === undefined ? [] : [s.session])).sort((a, b) => b.lastSeenAt - a.lastSeenAt);
  }

  /** Ends every session of the user; returns how many. */
  async endAll(userId: string): Promise<number> {
    const hashes = await this.redis.smembers(this.keys.userSessions(userId));
    if (hashes.length > 0) await this.redis.del(...hashes.map((h) => this.keys.session(h)));
    await this.redis.del(this.keys.userSessions(userId));
    return hashes.length;
  }
}
