// The e-mail code of the second sign-in step: six digits sent to the user's address through the
// notice relay (NOTICE_SMTP_URL), valid for a few minutes and a few tries, bound to the
// half-signed-in session, stored as its sha256. How often one is sent is throttled by the caller.
import { randomInt } from 'node:crypto';
import { createTransport } from 'nodemailer';
import type { RedisClient } from '../redis/connections.js';
import { type PortalKeys, sha256 } from './keys.js';

export const EMAIL_CODE_MS = 10 * 60 * 1000;
export const EMAIL_CODE_TRIES = 5;

export type SendMail = (to: string, subject: string, text: string) => Promise<void>;

export function relayMailer(smtpUrl: string, from: string, timeoutMs: number): SendMail {
  const transport = createTransport({ url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
  return async (to, subject, text) => {
    await transport.sendMail({ from, to, subject, text });
  };
}

export class EmailCodes {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: PortalKeys,
  ) {}

  /** A new code for the session (replacing any earlier one); returned to be sent. */
  async issue(sessionHash: string): Promise<string> {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const key = this.keys.emailCode(sessionHash);
    await this.redis
      .multi()
      .del(key)
      .hset(key, { hash: sha256(code), tries: '0' })
      .pexpire(key, EMAIL_CODE_MS)
      .exec();
    return code;
  }

  /**
   * True once for the right code. Every try is counted before the code is compared (one atomic
   * step), so tries sent at once are each counted; the code is gone after the last try.
   */
  async accept(sessionHash: string, code: string): Promise<boolean> {
    const key = this.keys.emailCode(sessionHash);
    const answers = await this.redis.multi().hincrby(key, 'tries', 1).hget(key, 'hash').pttl(key).exec();
    const tries = Number(answers?.[0]?.[1] ?? 0);
    const stored = answers?.[1]?.[1];
    const ttl = Number(answers?.[2]?.[1] ?? -1);
    // No code was issued (the count just made the hash, without an expiry), or its tries are spent.
    if (typeof stored !== 'string' || ttl < 0 || tries > EMAIL_CODE_TRIES) {
      await this.redis.del(key);
      return false;
    }
    if (stored !== sha256(code.trim())) {
      if (tries >= EMAIL_CODE_TRIES) await this.redis.del(key);
      return false;
    }
    return (await this.redis.del(key)) === 1; // once: a second use finds nothing
  }
}
