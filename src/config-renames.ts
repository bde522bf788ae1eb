// Variables renamed to say what they cover. An old name still set is refused at start, naming
// its new one: a deployment's setting under the old name would otherwise be ignored in silence.

/** Old name → the name that replaces it. */
export const RENAMED_VARIABLES: Readonly<Record<string, string>> = {
  RETENTION_DAYS: 'RAW_RETENTION_DAYS',
  API_TIMEOUT_MS: 'SENDER_API_TIMEOUT_MS',
  HTTP_HOST: 'OPS_HTTP_HOST',
  HTTP_PORT: 'OPS_HTTP_PORT',
  HTTP_TRUSTED_PROXIES: 'OPS_HTTP_TRUSTED_PROXIES',
};

/** One line per old name set (non-empty) in `env`, naming the new one. */
export function renamedVariablesIn(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(RENAMED_VARIABLES)
    .filter(([old]) => (env[old] ?? '') !== '')
    .map(([old, now]) => `${old}: renamed ${now}; set ${now} instead`);
}
