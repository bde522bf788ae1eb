// The versions of the reloadable files as they are on disk, computed as /readyz computes the
// loaded ones (support/reloadable.ts): where they differ, a process has not reloaded yet (SIGHUP
// it), or refused the file (its log says why).
import { readFileSync } from 'node:fs';
import { versionOf } from '../support/reloadable.js';
import { type CheckResult, ok } from './result.js';

/** The reloadable files this reads (SENDERS_FILE, TLS_KEY_FILE and TLS_CERT_FILE). */
export interface ReloadableFiles {
  readonly sendersFile: string | undefined;
  readonly smtp: { readonly tls: { readonly keyFile: string; readonly certFile: string } | undefined };
}

export function diskVersions(config: ReloadableFiles): CheckResult[] {
  const version = (files: readonly string[]): string => {
    try {
      return versionOf(files.map((f) => readFileSync(f)));
    } catch {
      return 'unreadable';
    }
  };
  const parts = [
    ...(config.sendersFile === undefined ? [] : [`senders ${version([config.sendersFile])}`]),
    ...(config.smtp.tls === undefined ? [] : [`tls ${version([config.smtp.tls.keyFile, config.smtp.tls.certFile])}`]),
  ];
  if (parts.length === 0) return [];
  return [ok('Reload', 'versions on disk', `${parts.join(', ')} (compare with "loaded" in each process's /readyz)`)];
}
