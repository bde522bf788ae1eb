// `letter-intake rekey`: seals every marker of the raw store again under the writing key
// (raw-store/sealing/rekey.ts) and says what stays under older keys. Exit 1 when a marker did not open.
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { rekeyMarkers } from '../raw-store/sealing/rekey.js';
import { roleContext } from './context.js';

export async function rekeyCommand(): Promise<number> {
  const ctx = roleContext(process.env, 'letter-intake');
  if (ctx.config.privacy.rawStoreKeys === undefined) {
    process.stderr.write('rekey: no master key is set (RAW_STORE_KEY_FILE, RAW_STORE_KEY or RAW_STORE_KEYS)\n');
    return 64;
  }
  const store = await openCheckedRawStore(ctx.config);
  try {
    const report = await rekeyMarkers(store);
    process.stdout.write(`${report.markers} marker(s) sealed again under the writing key\n`);
    for (const name of report.unopened) process.stdout.write(`  did not open under any configured key (left as is): ${name}\n`);
    process.stdout.write(
      'blobs are not rewritten: each stays readable while the key that sealed it is listed, and goes RAW_RETENTION_DAYS after its intake ended; keep the old key until then\n',
    );
    return report.unopened.length === 0 ? 0 : 1;
  } finally {
    store.close();
  }
}
