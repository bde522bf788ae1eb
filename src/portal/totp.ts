// TOTP (RFC 6238) with the parameters every authenticator app assumes: SHA-1, 6 digits, 30 s
// steps, one step of clock skew either way. A code is accepted once: the step it matched is kept,
// and a code of that step or an earlier one is refused (RFC 6238 §5.2). otpauth does the HMAC and
// the URI; the replay rule lives here, in Redis.
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { luaScript } from '../intake/lua-script.js';
import type { RedisClient } from '../redis/connections.js';
import type { PortalKeys } from './keys.js';

const TAKE_TOTP_STEP = luaScript(new URL('./scripts/take-totp-step-1.lua', import.meta.url));

const PERIOD_S = 30;
const ISSUER = 'letter-intake';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32; // RFC 4226 §4: 160 bits
}

function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** The otpauth:// URI an app reads from the QR code (or a person types). */
export function totpUri(secret: string, label: string): string {
  return totpOf(secret, label).toString();
}

/** The time step a code matches now (±1), or undefined. Pure: the replay rule is the caller's. */
export function matchingStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret, '').validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? undefined : Math.floor(nowMs / 1000 / PERIOD_S) + delta;
}

/** Accepts a code once per step: true when it matches and its step is later than the last accepted. */
export async function acceptTotp(
  redis: RedisClient,
  keys: PortalKeys,
  userId: string,
  secret: string,
  code: string,
  nowMs: number,
): Promise<boolean> {
  const step = matchingStep(secret, code.replace(/\s/g, ''), nowMs);
  if (step === undefined) return false;
  const taken = await TAKE_TOTP_STEP(redis, keys.totpStep(userId), String(step));
  return taken === 1;
}

/** Ten backup codes of ten digits (shown once, stored as their sha256). */
export function newBackupCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const digits = String(randomInt(0, 10_000_000_000)).padStart(10, '0');
    return `${digits.slice(0, 5)}-${digits.slice(5)}`;
  });
}

export const backupCodeHash = (code: string): string => createHash('sha256').update(code.replace(/[\s-]/g, '')).digest('hex');
