// The malware scanner (CLAMD_URL): clamd answers PING, and VERSION names a signature database
// and its date. An old database still scans, with yesterday's signatures: a warning after a week.
import type { PrivacySettings } from '../privacy-settings.js';
import { describeClamd } from '../scan/clamd-address.js';
import { clamdVersion, pingClamd } from '../scan/clamd-client.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Malware scan';
const DAY_MS = 24 * 3600 * 1000;
/** freshclam updates several times a day: a database older than this means updates stopped. */
export const DATABASE_STALE_DAYS = 7;

/** VERSION's answer ("ClamAV 1.4.6/27470/Tue Nov 24 09:24:02 2026") judged against now. */
export function judgeClamdVersion(answer: string, now: number): CheckResult {
  const [engine, database, date] = answer.split('/');
  if (database === undefined)
    return warn(
      AREA,
      'signature database',
      `${answer}: no official signature database (daily.cvd) is loaded, only local signatures if any; run freshclam`,
    );
  const built = Date.parse(date ?? '');
  const ageDays = Number.isNaN(built) ? undefined : Math.floor((now - built) / DAY_MS);
  const what = `${engine}, database version ${database}${date === undefined ? '' : ` of ${date}`}`;
  if (ageDays !== undefined && ageDays > DATABASE_STALE_DAYS) {
    return warn(AREA, 'signature database', `${what}: ${ageDays} days old; check that freshclam runs`);
  }
  return ok(AREA, 'signature database', what);
}

export async function checkClamd(clamd: PrivacySettings['clamd'], now: number, timeoutMs: number): Promise<CheckResult[]> {
  if (clamd === undefined) return [warn(AREA, 'CLAMD_URL', 'unset: PDFs are passed on without a malware scan')];
  const where = describeClamd(clamd.address);
  try {
    await pingClamd(clamd.address, Math.min(timeoutMs, clamd.timeoutMs));
  } catch (err) {
    const held = clamd.required ? 'letters wait until it answers' : 'CLAMD_REQUIRED=false: letters pass unscanned';
    return [fail(AREA, 'PING', `${where}: ${err instanceof Error ? err.message : String(err)}; ${held}`)];
  }
  const results = [ok(AREA, 'PING', `${where} answers PONG`)];
  try {
    results.push(judgeClamdVersion(await clamdVersion(clamd.address, Math.min(timeoutMs, clamd.timeoutMs)), now));
  } catch (err) {
    results.push(fail(AREA, 'signature database', `${where}: VERSION failed: ${err instanceof Error ? err.message : String(err)}`));
  }
  return results;
}
