// The sender directory (SENDERS_FILE): who may send letters, from which addresses, and the
// Sender API credentials the gateway uses on their behalf. The sandbox API reads the same file.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Env } from '../config-env.js';
import { nearestName } from '../nearest-name.js';
import type { NoticeKind } from '../words/notice-kind.js';
import { type AddressesInUse, type TenantSettings, tenantProblem, tenantSettingsOf, tenantSettingsShape } from './tenant-settings.js';

const cidr = z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'must be an address range like 127.0.0.1/32');

// Strict: a field this version does not know (a misspelling, a setting of a later version) is
// refused, naming the nearest known field, instead of being ignored in silence; a reload that
// meets one keeps the loaded directory.
const senderSchema = z
  .strictObject({
    senderId: z.uuid(),
    companyNameEn: z.string().min(1),
    addresses: z.array(z.email()).min(1),
    apiClientId: z.string().min(1),
    apiClientSecret: z.string().min(1).optional(),
    apiClientSecretEnv: z.string().min(1).optional(),
    allowedIps: z.array(cidr).optional(),
    /** Good news the sender wants by mail too; bad news is always told. */
    notify: z.array(z.enum(['submitted'])).default([]),
    /** The sender's PDFs may carry AcroForm fields (JavaScript stays forbidden). */
    allowPdfForms: z.boolean().default(false),
    ...tenantSettingsShape,
  })
  .refine((s) => (s.apiClientSecret === undefined) !== (s.apiClientSecretEnv === undefined), {
    message: 'give exactly one of apiClientSecret and apiClientSecretEnv',
  });

const fileSchema = z.object({ senders: z.array(senderSchema) });

export interface Sender extends TenantSettings {
  readonly senderId: string;
  readonly companyNameEn: string;
  /** Lower-cased registered addresses. */
  readonly addresses: readonly string[];
  readonly apiClientId: string;
  readonly apiClientSecret: string;
  readonly allowedIps: readonly string[] | undefined;
  /** Notices the sender asked for besides bad news: `submitted` (a confirmation per letter). */
  readonly notify: readonly NoticeKind[];
  readonly allowPdfForms: boolean;
}

export interface SenderDirectory {
  readonly senders: readonly Sender[];
  /** The sender owning this address (case-insensitive), if any. */
  byAddress(address: string): Sender | undefined;
  byClientId(apiClientId: string): Sender | undefined;
  bySenderId(senderId: string): Sender | undefined;
  /** The sender whose own processing address this is (case-insensitive), if any. */
  byProcessingAddress(address: string): Sender | undefined;
}

/** The fields a sender entry may have: the schema's own. */
const SENDER_FIELDS: readonly string[] = Object.keys(senderSchema.shape);

function unknownField(key: string): string {
  return `unknown field "${key}" (the nearest known field is "${nearestName(key, SENDER_FIELDS) ?? ''}")`;
}

export class SenderDirectoryError extends Error {
  override readonly name = 'SenderDirectoryError';
}

/**
 * Builds the directory from parsed JSON; `env` resolves `apiClientSecretEnv`; `inUse` names the
 * addresses no sender may take as its processing address.
 */
export function parseSenderDirectory(json: unknown, env: Env, source = 'SENDERS_FILE', inUse: AddressesInUse = {}): SenderDirectory {
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((i) =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((key) => `  ${i.path.join('.')}: ${unknownField(key)}`)
        : [`  ${i.path.join('.') || '(root)'}: ${i.message}`],
    );
    throw new SenderDirectoryError(`${source} is not a valid sender directory:\n${lines.join('\n')}`);
  }
  const senders = parsed.data.senders.map((s, index): Sender => {
    const secret = s.apiClientSecret ?? env[s.apiClientSecretEnv ?? ''];
    if (secret === undefined || secret === '') {
      throw new SenderDirectoryError(`${source}: senders.${index}.apiClientSecretEnv names ${s.apiClientSecretEnv}, which is not set`);
    }
    return {
      senderId: s.senderId,
      companyNameEn: s.companyNameEn,
      addresses: s.addresses.map((a) => a.toLowerCase()),
      apiClientId: s.apiClientId,
      apiClientSecret: secret,
      allowedIps: s.allowedIps,
      notify: s.notify,
      allowPdfForms: s.allowPdfForms,
      ...tenantSettingsOf(s),
    };
  });
  const problem = tenantProblem(senders, inUse);
  if (problem !== undefined) throw new SenderDirectoryError(`${source}: ${problem}`);
  assertUnique(
    senders.flatMap((s) => s.addresses),
    'address',
    source,
  );
  assertUnique(
    senders.map((s) => s.apiClientId),
    'apiClientId',
    source,
  );
  assertUnique(
    senders.map((s) => s.senderId),
    'senderId',
    source,
  );

  const byAddress = new Map(senders.flatMap((s) => s.addresses.map((a) => [a, s] as const)));
  const byClientId = new Map(senders.map((s) => [s.apiClientId, s] as const));
  const bySenderId = new Map(senders.map((s) => [s.senderId, s] as const));
  const byProcessingAddress = new Map(senders.flatMap((s) => (s.processingAddresses ?? []).map((a) => [a, s] as const)));
  return {
    senders,
    byAddress: (address) => byAddress.get(address.toLowerCase()),
    byClientId: (id) => byClientId.get(id),
    bySenderId: (id) => bySenderId.get(id),
    byProcessingAddress: (address) => byProcessingAddress.get(address.toLowerCase()),
  };
}

export function loadSenderDirectory(file: string, env: Env, inUse: AddressesInUse = {}): SenderDirectory {
  return parseSenderDirectory(readDirectoryFile(file), env, `SENDERS_FILE ${file}`, inUse);
}

/**
 * Only the registered addresses, for the listener: it judges the From address in the session
 * but never talks to the Sender API, so it needs (and is given) no client secrets.
 */
export function loadRegisteredAddresses(file: string): ReadonlySet<string> {
  return registeredAddressesIn(readDirectoryFile(file), file);
}

/** The registered addresses of a directory's JSON, validated as the whole directory is. */
export function registeredAddressesIn(json: unknown, file: string): ReadonlySet<string> {
  return new Set(listenerDirectoryOf(json, file).senders.flatMap((s) => s.addresses));
}

/**
 * The directory as the listener reads it: every sender's addresses and settings, validated as
 * the whole directory is, with no client secret resolved (their variables need not be set).
 */
export function listenerDirectoryOf(json: unknown, file: string, inUse: AddressesInUse = {}): SenderDirectory {
  const secretsUnused = new Proxy<Env>({}, { get: () => 'unused by the listener' });
  return parseSenderDirectory(json, secretsUnused, `SENDERS_FILE ${file}`, inUse);
}

function readDirectoryFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SenderDirectoryError(`SENDERS_FILE ${file} cannot be read as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function assertUnique(values: readonly string[], what: string, source: string): void {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw new SenderDirectoryError(`${source}: ${what} ${v} appears twice`);
    seen.add(v);
  }
}
