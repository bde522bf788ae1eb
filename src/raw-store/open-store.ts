// RAW_STORE_URL → a RawStore, and the start-up check that fails fast naming the variable.

import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';
import type { PrivacySettings } from '../privacy-settings.js';
import { fileRawStore } from './file-store.js';
import type { GroupCommitSettings } from './group-sync.js';
import { describeLocation, type RawStoreLocation } from './location.js';
import { type RawStore, WRITE_ONCE_UNPROTECTED } from './raw-store.js';
import { askForServerSideEncryption, type S3Sse } from './s3-sse.js';
import { s3RawStore } from './s3-store.js';
import { type Keyring, keyringFromFile, keyringOf } from './sealing/keyring.js';
import { sealedRawStore } from './sealing/sealed-store.js';

export interface RawStoreSettings {
  readonly location: RawStoreLocation;
  readonly timeoutMs: number;
  readonly s3PathStyle: boolean;
  /** Client settings beyond the SDK's standard configuration (tests: a loopback endpoint). */
  readonly s3Client?: S3ClientConfig;
  /** RAW_STORE_S3_SSE: asked for on every put. */
  readonly s3Sse?: S3Sse | undefined;
  /** The master keys: every blob and marker is sealed under them (sealing/sealed-store.ts). */
  readonly keyring?: Keyring | undefined;
  /** A directory's commits share its fsync (GROUP_COMMIT); absent: each commits alone. */
  readonly groupCommit?: GroupCommitSettings | undefined;
  /** Where the S3 store warns of a probe object it could not delete. */
  readonly logger?: Logger | undefined;
}

export function openRawStore(settings: RawStoreSettings): RawStore {
  const { location, timeoutMs } = settings;
  const sse = settings.s3Sse;
  const store =
    location.kind === 'file'
      ? fileRawStore({ dir: location.dir, timeoutMs, groupCommit: settings.groupCommit })
      : s3RawStore({
          bucket: location.bucket,
          prefix: location.prefix,
          timeoutMs,
          forcePathStyle: settings.s3PathStyle,
          ...(settings.s3Client === undefined ? {} : { client: settings.s3Client }),
          ...(sse === undefined ? {} : { onClient: (client: S3Client) => askForServerSideEncryption(client, sse) }),
          probeLeft: (key, err) =>
            settings.logger?.warn(
              { event: 'raw_store.probe_left', key, err },
              'a probe object could not be deleted: the orphan sweep deletes it once RAW_STORE_ORPHAN_AFTER_MS passed',
            ),
        });
  return settings.keyring === undefined ? store : sealedRawStore(store, settings.keyring);
}

/** The master keys the settings name (RAW_STORE_KEY_FILE is read here), or undefined: blobs as sent. */
export function keyringOfSettings(keys: PrivacySettings['rawStoreKeys']): Keyring | undefined {
  if (keys === undefined) return undefined;
  try {
    return 'file' in keys ? keyringFromFile(keys.file) : keyringOf(keys.keys, 'RAW_STORE_KEYS');
  } catch (err) {
    throw new StartupError(`the raw store's master keys cannot be read: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/**
 * Start-up: the store must be reachable and writable, or the role does not start. A store whose
 * write-once is not its own (no conditional puts) still starts, with a warning every time.
 */
export async function checkRawStoreAtStart(store: RawStore, location: RawStoreLocation, logger?: Logger): Promise<void> {
  try {
    await store.check();
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new StartupError(`the raw store ${describeLocation(location)} is not usable (RAW_STORE_URL): ${detail}`, { cause: err });
  }
  if (logger === undefined) return;
  const exclusive = await store.exclusiveCreate().catch((err: unknown) => {
    logger.warn(
      { event: 'raw_store.write_once_unknown', err, store: store.location },
      'could not tell whether the raw store has conditional puts; asked again at the first letter',
    );
    return true;
  });
  if (!exclusive)
    logger.warn(
      { event: 'raw_store.write_once_unprotected', store: store.location },
      `raw store ${store.location}: ${WRITE_ONCE_UNPROTECTED}`,
    );
}

/** The configured store, checked: what a role that accepts or processes mail starts with. */
export async function openCheckedRawStore(
  config: {
    readonly rawStore: { readonly location: RawStoreLocation; readonly s3PathStyle: boolean };
    readonly enqueueTimeoutMs: number;
    readonly privacy?: Pick<PrivacySettings, 'rawStoreKeys' | 's3Sse'>;
  },
  /** Where a role's start warns about a store without conditional puts. */
  logger?: Logger,
  /** GROUP_COMMIT, for the listener's store alone (runtime/store-group-commit.ts); absent: each commits alone. */
  groupCommit?: GroupCommitSettings,
): Promise<RawStore> {
  // One bound for every store operation: the listener's whole store-and-queue step has this bound too.
  const store = openRawStore({
    location: config.rawStore.location,
    timeoutMs: config.enqueueTimeoutMs,
    s3PathStyle: config.rawStore.s3PathStyle,
    s3Sse: config.privacy?.s3Sse,
    keyring: keyringOfSettings(config.privacy?.rawStoreKeys),
    groupCommit,
    logger,
  });
  try {
    await checkRawStoreAtStart(store, config.rawStore.location, logger);
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}
