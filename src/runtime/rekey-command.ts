// `letter-intake rekey`: seals every blob and marker of the raw store again under the writing key
// (raw-store/sealing/rekey.ts) and says what it did. What did not open is left as it is, logged
// with its key (RawStoreSealBroken) and named on stdout; exit 1 then, and the old key must stay.
import { checkRawStoreAtStart, keyringOfSettings, openRawStore } from '../raw-store/open-store.js';
import { type RekeyCounts, rekeyRawStore } from '../raw-store/sealing/rekey.js';
import { SealBroken } from '../raw-store/sealing/seal-format.js';
import { roleContext } from './context.js';

export async function rekeyCommand(): Promise<number> {
  const ctx = roleContext(process.env, 'letter-intake');
  const { config, logger } = ctx;
  const keyring = keyringOfSettings(config.privacy.rawStoreKeys);
  if (keyring === undefined) {
    process.stderr.write('rekey: no master key is set (RAW_STORE_KEY_FILE, RAW_STORE_KEY or RAW_STORE_KEYS)\n');
    return 64;
  }
  // The store as stored (no sealing layer): rekey reads each header to see which key sealed it.
  const plain = openRawStore({
    location: config.rawStore.location,
    timeoutMs: config.enqueueTimeoutMs,
    s3PathStyle: config.rawStore.s3PathStyle,
    s3Sse: config.privacy.s3Sse,
  });
  try {
    await checkRawStoreAtStart(plain, config.rawStore.location);
    const report = await rekeyRawStore(plain, keyring, (key, err) => {
      if (err instanceof SealBroken) {
        logger.error(
          { event: 'raw_store.rekey_unopened', errorCode: 'RawStoreSealBroken', key, err },
          `${key} did not open: left as it is`,
        );
      } else {
        logger.error({ event: 'raw_store.rekey_failed', key, err }, `${key} could not be sealed again: left as it is`);
      }
    });
    const line = (what: string, counts: RekeyCounts): string =>
      `${counts.rewritten} ${what}(s) sealed again under the writing key, ${counts.current} already under it, ` +
      `${counts.failed.length} did not open or failed${counts.gone === 0 ? '' : `, ${counts.gone} went meanwhile`}\n`;
    process.stdout.write(line('blob', report.blobs));
    process.stdout.write(line('marker', report.markers));
    const failures = [...report.blobs.failed, ...report.markers.failed];
    for (const { key, reason } of failures) process.stdout.write(`  left as it is: ${key}: ${reason}\n`);
    process.stdout.write(
      failures.length === 0
        ? 'every blob and marker is under the writing key: the older keys may leave the keyring\n'
        : 'keep the older keys until what is named above is dealt with (run rekey again after a store failure)\n',
    );
    return failures.length === 0 ? 0 : 1;
  } finally {
    plain.close();
  }
}
