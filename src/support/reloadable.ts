// Configuration read from files that can change while the process runs: the sender directory and
// the STARTTLS key and certificate. A reload reads and validates everything first and swaps only
// then: one that fails keeps what is loaded, and says why. The version is the files' digest, so
// /readyz and `doctor` show the same string for the same content.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface LoadedVersion {
  /** The first 12 hex digits of the SHA-256 of the files' bytes. */
  readonly version: string;
  readonly loadedAt: string;
}

export type ReloadOutcome =
  | { readonly kind: 'reloaded'; readonly version: string }
  | { readonly kind: 'unchanged'; readonly version: string }
  | { readonly kind: 'failed'; readonly error: string; readonly keptVersion: string };

export interface Reloadable<T> {
  readonly files: readonly string[];
  current(): T;
  loaded(): LoadedVersion;
  reload(): ReloadOutcome;
}

/** The version string of these files' contents. */
export function versionOf(contents: readonly Buffer[]): string {
  const hash = createHash('sha256');
  for (const c of contents) hash.update(c);
  return hash.digest('hex').slice(0, 12);
}

/**
 * Loads `files` now (a failure throws: the process does not start on a bad file) and on each
 * reload(); `parse` validates and builds the value, throwing with a message for the operator.
 * `onSwap` applies a new value where a copy of it lives (a TLS context).
 */
export function reloadableFiles<T>(options: {
  readonly files: readonly string[];
  readonly parse: (contents: readonly Buffer[]) => T;
  /** The error a file that cannot be read becomes (at start: the one the CLI reports). */
  readonly unreadable: (file: string, err: unknown) => Error;
  readonly clock: () => number;
  readonly onSwap?: (value: T) => void;
}): Reloadable<T> {
  const { files, parse, clock, onSwap = () => undefined } = options;
  const read = () =>
    files.map((f) => {
      try {
        return readFileSync(f);
      } catch (err) {
        throw options.unreadable(f, err);
      }
    });
  const initial = read();
  let value = parse(initial);
  let loaded: LoadedVersion = { version: versionOf(initial), loadedAt: new Date(clock()).toISOString() };
  return {
    files,
    current: () => value,
    loaded: () => loaded,
    reload() {
      let next: T;
      let version: string;
      try {
        const contents = read();
        version = versionOf(contents);
        if (version === loaded.version) return { kind: 'unchanged', version };
        next = parse(contents);
        onSwap(next);
      } catch (err) {
        return { kind: 'failed', error: err instanceof Error ? err.message : String(err), keptVersion: loaded.version };
      }
      value = next;
      loaded = { version, loadedAt: new Date(clock()).toISOString() };
      return { kind: 'reloaded', version };
    },
  };
}
