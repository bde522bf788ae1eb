// Variables that look like the gateway's own (one of its prefixes) but that the configuration
// does not know: a misspelt name, or a setting of another version. Ignored in silence, such a
// variable leaves an operator believing it works; instead each is named at start (a warning,
// `config.unknown_variable`) and by `doctor` (a `!` line), with the nearest known name. The
// known names are the schema's own (KNOWN_VARIABLES), so a setting added there is known here.
import { KNOWN_VARIABLES } from './config.js';
import { nearestName } from './nearest-name.js';

/** The prefixes of the gateway's variables. */
export const OWN_PREFIXES = [
  'SMTP_',
  'RAW_STORE_',
  'SENDER_API_',
  'NOTICE_',
  'OPS_HTTP_',
  'SANDBOX_',
  'PORTAL_',
  'SELFTEST_',
  'CLAMD_',
  'MTA_STS_',
  'REDIS_',
] as const;

/**
 * Names with those prefixes that belong to others: what the official Redis images export, and
 * the host ports docker-compose.yml reads (set in the shell that runs compose, not for us).
 */
const OTHERS = new Set([
  'REDIS_VERSION',
  'REDIS_DOWNLOAD_URL',
  'REDIS_DOWNLOAD_SHA',
  'SMTP_PUBLISH_PORT',
  'OPS_HTTP_PUBLISH_PORT',
  'SANDBOX_PUBLISH_PORT',
]);

export interface UnknownVariable {
  readonly name: string;
  /** The known variable nearest to it. */
  readonly nearest: string;
}

/**
 * The set (non-empty) variables of `env` with a gateway prefix that the schema does not know, by
 * name. `named`: variables the operator's own files name (the senders' secrets), never unknown.
 */
export function unknownVariablesIn(env: Readonly<Record<string, string | undefined>>, named: readonly string[] = []): UnknownVariable[] {
  const known = new Set<string>([...KNOWN_VARIABLES, ...named]);
  return Object.entries(env)
    .filter(([name, value]) => (value ?? '') !== '' && OWN_PREFIXES.some((p) => name.startsWith(p)))
    .map(([name]) => name)
    .filter((name) => !known.has(name) && !OTHERS.has(name))
    .sort()
    .map((name) => ({ name, nearest: nearestName(name, KNOWN_VARIABLES) ?? '' }));
}

/** One sentence per unknown variable, for the start warning and doctor. */
export function describeUnknown(variable: UnknownVariable): string {
  return `${variable.name} is not a setting of this version and does nothing (the nearest known name is ${variable.nearest})`;
}
