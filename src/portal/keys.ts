// Where the portal keeps its state in Redis: under the gateway's prefix, beside the intakes, so a
// cluster's hash tag puts it in the same slot. Secrets (session ids, set-password tokens, form
// tokens) are stored only as their sha256, so a copy of Redis opens no session.
import { createHash } from 'node:crypto';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function portalKeys(prefix: string) {
  const at = (...parts: string[]): string => [prefix, 'portal', ...parts].join(':');
  return {
    /** Hash: one user (userId, senderId, email, passwordHash, disabled, totp…). */
    user: (userId: string) => at('user', userId),
    /** String: the user id of an e-mail address (lower-cased). */
    email: (email: string) => at('email', email.toLowerCase()),
    /** Set: every user id. */
    users: at('users'),
    /** String (24 h): the user a set-password token is for. */
    invite: (tokenHash: string) => at('invite', tokenHash),
    /** Hash (12 h, extended by activity): one session. */
    session: (idHash: string) => at('session', idHash),
    /** Set: the session hashes of a user (entries whose session expired are dropped when read). */
    userSessions: (userId: string) => at('user-sessions', userId),
    /** String: the last TOTP time step a user's code was accepted for. */
    totpStep: (userId: string) => at('totp-step', userId),
    /** Hash (minutes): the e-mail code a half-signed-in session waits for. */
    emailCode: (sessionHash: string) => at('email-code', sessionHash),
    /** Counter with a window: failures or sends under one key. */
    throttle: (kind: string, key: string) => at('throttle', kind, key),
    /** String: the one-time upload form token's state ("open", then the intake id). */
    formToken: (tokenHash: string) => at('form', tokenHash),
    /** List: the audit log, newest first, bounded. */
    audit: at('audit'),
    /** String: the key that signs CSRF tokens, made once by the first portal to start. */
    secret: at('secret'),
    /** Hash: a sender's letter statuses as the Sender API last showed them (a short cache). */
    letterStatus: (letterId: string) => at('letter-status', letterId),
  };
}

export type PortalKeys = ReturnType<typeof portalKeys>;
