// The settings of the malware scan (CLAMD_*), the MTA-STS policy (MTA_STS_*) and encryption at
// rest (RAW_STORE_KEY*, RAW_STORE_S3_SSE*): their part of the one schema (config.ts spreads it in)
// and their section of the config. Unset, the gateway scans nothing, serves no policy and stores
// mail as sent.
import { z } from 'zod';
import { type ClamdAddress, parseClamdUrl } from './scan/clamd-address.js';

const whole = (min: number, fallback: number) =>
  z.coerce
    .number({ error: `expected a whole number (at least ${min})` })
    .int({ error: `expected a whole number (at least ${min})` })
    .min(min, { error: `expected a whole number, at least ${min}` })
    .default(fallback);

/** A 32-byte key written in base64 (`openssl rand -base64 32`). */
export function isKeyText(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}

const keyList = z
  .string()
  .optional()
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    const bad = value
      .split(',')
      .map((k) => k.trim())
      .findIndex((k) => !isKeyText(k));
    if (bad >= 0) ctx.addIssue({ code: 'custom', message: `entry ${bad + 1} is not 32 bytes in base64 (openssl rand -base64 32)` });
  });

export const PRIVACY_VARIABLES = {
  /** Where clamd listens (tcp://host:port or unix:/path); unset: no malware scan. */
  CLAMD_URL: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      try {
        parseClamdUrl(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      }
    }),
  /** Bound on one INSTREAM (the message or one PDF). */
  CLAMD_TIMEOUT_MS: whole(100, 30_000),
  /** `false`: a clamd that cannot answer lets letters through unscanned (logged) instead of holding them. */
  CLAMD_REQUIRED: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** How long clamd may stay away before an operator is alerted (ClamdUnavailable). */
  CLAMD_ALERT_AFTER_MS: whole(0, 600_000),
  /** The MTA-STS policy served at /.well-known/mta-sts.txt (RFC 8461): unset serves none. */
  MTA_STS_MODE: z.enum(['testing', 'enforce']).optional(),
  /** The policy's MX names (comma-separated; `*.example.com` allowed), required with MTA_STS_MODE. */
  MTA_STS_MX: z.string().optional(),
  /** The policy's max_age in seconds (RFC 8461 §3.2: at most 31557600). */
  MTA_STS_MAX_AGE: z.coerce
    .number({ error: 'expected a whole number of seconds' })
    .int({ error: 'expected a whole number of seconds' })
    .min(0)
    .max(31_557_600, { error: 'at most 31557600 (RFC 8461 §3.2)' })
    .default(604_800),
  /** The raw store's master key(s): a file of base64 keys, one a line (the last one writes). */
  RAW_STORE_KEY_FILE: z.string().trim().min(1).optional(),
  /** One master key, base64 (a file is safer: the environment shows in /proc and docker inspect). */
  RAW_STORE_KEY: keyList,
  /** Master keys for a rotation, comma-separated base64, old first: the last one writes, all read. */
  RAW_STORE_KEYS: keyList,
  /** S3 server-side encryption asked for on every put: AES256 or aws:kms (with RAW_STORE_S3_KMS_KEY_ID). */
  RAW_STORE_S3_SSE: z.enum(['AES256', 'aws:kms']).optional(),
  RAW_STORE_S3_KMS_KEY_ID: z.string().trim().min(1).optional(),
};

type PrivacyParsed = z.infer<z.ZodObject<typeof PRIVACY_VARIABLES>>;

export interface PrivacySettings {
  readonly clamd:
    | { readonly address: ClamdAddress; readonly timeoutMs: number; readonly required: boolean; readonly alertAfterMs: number }
    | undefined;
  readonly mtaSts: { readonly mode: 'testing' | 'enforce'; readonly mx: readonly string[]; readonly maxAgeSeconds: number } | undefined;
  /** Where the master keys come from; undefined: the raw store keeps mail as sent. */
  readonly rawStoreKeys: { readonly file: string } | { readonly keys: readonly string[] } | undefined;
  readonly s3Sse: { readonly mode: 'AES256' } | { readonly mode: 'aws:kms'; readonly kmsKeyId: string | undefined } | undefined;
}

/** The section, or the problem naming the variables. */
export function privacySection(e: PrivacyParsed): PrivacySettings | string {
  const keySources = (['RAW_STORE_KEY_FILE', 'RAW_STORE_KEY', 'RAW_STORE_KEYS'] as const).filter((name) => e[name] !== undefined);
  if (keySources.length > 1) return `${keySources.join(', ')}: set one of them (each names the master keys)`;
  if (e.RAW_STORE_KEY?.includes(',')) return 'RAW_STORE_KEY: one key; a rotation lists its keys in RAW_STORE_KEYS';
  if (e.RAW_STORE_S3_KMS_KEY_ID !== undefined && e.RAW_STORE_S3_SSE !== 'aws:kms')
    return 'RAW_STORE_S3_KMS_KEY_ID: only read with RAW_STORE_S3_SSE=aws:kms';
  const mx = (e.MTA_STS_MX ?? '')
    .split(',')
    .map((m) => m.trim().toLowerCase())
    .filter((m) => m !== '');
  if (e.MTA_STS_MODE !== undefined && mx.length === 0)
    return 'MTA_STS_MX: required with MTA_STS_MODE (the MX names senders may deliver to)';
  if (e.MTA_STS_MODE === undefined && e.MTA_STS_MX !== undefined) return 'MTA_STS_MX: only read with MTA_STS_MODE (testing or enforce)';
  const badMx = mx.find((m) => !/^(\*\.)?([a-z0-9-]+\.)+[a-z0-9-]+$/.test(m));
  if (badMx !== undefined) return `MTA_STS_MX: "${badMx}" is not a host name (a leading "*." is allowed)`;
  const keys = e.RAW_STORE_KEYS ?? e.RAW_STORE_KEY;
  return {
    clamd:
      e.CLAMD_URL === undefined
        ? undefined
        : {
            address: parseClamdUrl(e.CLAMD_URL),
            timeoutMs: e.CLAMD_TIMEOUT_MS,
            required: e.CLAMD_REQUIRED,
            alertAfterMs: e.CLAMD_ALERT_AFTER_MS,
          },
    mtaSts: e.MTA_STS_MODE === undefined ? undefined : { mode: e.MTA_STS_MODE, mx, maxAgeSeconds: e.MTA_STS_MAX_AGE },
    rawStoreKeys:
      e.RAW_STORE_KEY_FILE !== undefined
        ? { file: e.RAW_STORE_KEY_FILE }
        : keys !== undefined
          ? { keys: keys.split(',').map((k) => k.trim()) }
          : undefined,
    s3Sse:
      e.RAW_STORE_S3_SSE === undefined
        ? undefined
        : e.RAW_STORE_S3_SSE === 'AES256'
          ? { mode: 'AES256' }
          : { mode: 'aws:kms', kmsKeyId: e.RAW_STORE_S3_KMS_KEY_ID },
  };
}
