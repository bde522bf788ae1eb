// The sender directory as a process serves it: loaded from SENDERS_FILE at start and swapped
// whole on a reload (runtime/reloads.ts), so a lookup sees the old directory or the new one,
// never a mix. The listener's view (registered addresses only, no secrets) reloads the same way.
import type { Env } from '../config-env.js';
import { type Reloadable, reloadableFiles } from '../support/reloadable.js';
import {
  listenerDirectoryOf,
  parseSenderDirectory,
  registeredAddressesIn,
  type SenderDirectory,
  SenderDirectoryError,
} from './directory.js';
import type { AddressesInUse } from './tenant-settings.js';

const unreadable = (file: string, err: unknown): Error =>
  new SenderDirectoryError(`SENDERS_FILE ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}`);

function json(bytes: Buffer | undefined, file: string): unknown {
  try {
    return JSON.parse(bytes?.toString('utf8') ?? '');
  } catch (err) {
    throw new SenderDirectoryError(`SENDERS_FILE ${file} cannot be read as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function reloadableSenderDirectory(
  file: string,
  env: Env,
  clock: () => number,
  inUse: AddressesInUse = {},
): Reloadable<SenderDirectory> {
  return reloadableFiles({
    files: [file],
    parse: ([bytes]) => parseSenderDirectory(json(bytes, file), env, `SENDERS_FILE ${file}`, inUse),
    unreadable,
    clock,
  });
}

export function reloadableRegisteredAddresses(file: string, clock: () => number): Reloadable<ReadonlySet<string>> {
  return reloadableFiles({ files: [file], parse: ([bytes]) => registeredAddressesIn(json(bytes, file), file), unreadable, clock });
}

/** The listener's view: every sender's settings, no secrets (directory.ts, listenerDirectoryOf). */
export function reloadableListenerDirectory(file: string, clock: () => number, inUse: AddressesInUse = {}): Reloadable<SenderDirectory> {
  return reloadableFiles({ files: [file], parse: ([bytes]) => listenerDirectoryOf(json(bytes, file), file, inUse), unreadable, clock });
}

/** A SenderDirectory that always answers from the currently loaded version. */
export function liveSenderDirectory(loaded: Reloadable<SenderDirectory>): SenderDirectory {
  return {
    get senders() {
      return loaded.current().senders;
    },
    byAddress: (address) => loaded.current().byAddress(address),
    byClientId: (id) => loaded.current().byClientId(id),
    bySenderId: (id) => loaded.current().bySenderId(id),
    byProcessingAddress: (address) => loaded.current().byProcessingAddress(address),
  };
}
