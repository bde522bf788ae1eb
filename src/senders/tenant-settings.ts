// A sender's own settings in SENDERS_FILE, each optional (absent: the sender is served as every
// sender is without it): the DKIM selectors that may sign its letters, its own processing
// addresses, whether it also takes the shared ones, and its limits. docs/configuration.md
// documents each with an example.
import { z } from 'zod';
import { checkBaseUrl } from '../sender-api/base-url.js';

const lowerCased = (values: readonly string[]): string[] => values.map((v) => v.toLowerCase());

/** A DKIM selector (RFC 6376 §3.1: dot-separated labels). */
const selector = z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be a DKIM selector like hk1');

const limitsSchema = z
  .object({
    messagesPerHour: z.number().int().positive().optional(),
    bytesPerHour: z.number().int().positive().optional(),
    queuedIntakes: z.number().int().positive().optional(),
  })
  .strict()
  .refine((l) => Object.values(l).some((v) => v !== undefined), { message: 'name at least one limit' });

export const tenantSettingsShape = {
  /** Only a passing, aligned signature with one of these selectors makes a letter. */
  dkimSelectors: z.array(selector).min(1, 'list at least one selector, or leave dkimSelectors out').optional(),
  /** Addresses taken at RCPT like INBOUND_ADDRESSES, whose mail must come from this sender. */
  processingAddresses: z.array(z.email()).min(1, 'list at least one address, or leave processingAddresses out').optional(),
  /** false: the sender's mail to a shared address (INBOUND_ADDRESSES) is refused. */
  sharedAddress: z.boolean().default(true),
  limits: limitsSchema.optional(),
  /** The Sender API this sender's letters go to (the rule of SENDER_API_URL); absent: SENDER_API_URL. */
  senderApiUrl: z
    .string()
    .superRefine((raw, ctx) => {
      try {
        checkBaseUrl(raw, 'senderApiUrl');
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      }
    })
    .optional(),
  /** Every check runs and the intake ends `simulated`: nothing reaches the Sender API. */
  dryRun: z.boolean().default(false),
};

export interface SenderLimits {
  readonly messagesPerHour?: number | undefined;
  readonly bytesPerHour?: number | undefined;
  readonly queuedIntakes?: number | undefined;
}

/** Each optional, as in the file: a Sender built without them is served as before. */
export interface TenantSettings {
  /** Lower-cased; undefined: any selector of an aligned signature counts. */
  readonly dkimSelectors?: readonly string[] | undefined;
  /** Lower-cased; absent or empty when the sender has none of its own. */
  readonly processingAddresses?: readonly string[] | undefined;
  /** Absent: true. */
  readonly sharedAddress?: boolean | undefined;
  readonly limits?: SenderLimits | undefined;
  /** Absent: SENDER_API_URL. */
  readonly senderApiUrl?: string | undefined;
  /** Absent: false. */
  readonly dryRun?: boolean | undefined;
}

type ParsedSettings = {
  readonly dkimSelectors?: readonly string[] | undefined;
  readonly processingAddresses?: readonly string[] | undefined;
  readonly sharedAddress: boolean;
  readonly limits?: SenderLimits | undefined;
  readonly senderApiUrl?: string | undefined;
  readonly dryRun: boolean;
};

export function tenantSettingsOf(parsed: ParsedSettings): TenantSettings {
  return {
    dkimSelectors: parsed.dkimSelectors === undefined ? undefined : lowerCased(parsed.dkimSelectors),
    processingAddresses: lowerCased(parsed.processingAddresses ?? []),
    sharedAddress: parsed.sharedAddress,
    limits: parsed.limits,
    senderApiUrl: parsed.senderApiUrl,
    dryRun: parsed.dryRun,
  };
}

/** Addresses a sender may not take as its own: the shared ones, and reserved ones (a self-test address). */
export interface AddressesInUse {
  readonly sharedAddresses?: readonly string[] | undefined;
  readonly reservedAddresses?: readonly string[] | undefined;
}

/**
 * What the directory refuses across senders, in words (undefined: nothing): a processing address
 * listed twice or equal to a shared or reserved address, and a sender refusing the shared
 * address without an address of its own (its mail could go nowhere).
 */
export function tenantProblem(senders: readonly TenantSettings[], inUse: AddressesInUse): string | undefined {
  const shared = new Set(lowerCased(inUse.sharedAddresses ?? []));
  const reserved = new Set(lowerCased(inUse.reservedAddresses ?? []));
  const seen = new Set<string>();
  for (const [index, sender] of senders.entries()) {
    const own = sender.processingAddresses ?? [];
    if (sender.sharedAddress === false && own.length === 0) {
      return `senders.${index}: sharedAddress false needs processingAddresses of its own`;
    }
    for (const address of own) {
      if (seen.has(address)) return `processing address ${address} appears twice`;
      if (shared.has(address)) return `processing address ${address} is a shared address (INBOUND_ADDRESSES)`;
      if (reserved.has(address)) return `processing address ${address} is reserved (the self-test address)`;
      seen.add(address);
    }
  }
  return undefined;
}
