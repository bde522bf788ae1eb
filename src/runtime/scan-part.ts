// The worker's malware scanner, built from CLAMD_* (undefined without CLAMD_URL): its outage
// alert goes to the operator-alert metric.
import type { PrivacySettings } from '../privacy-settings.js';
import { createMalwareScanner, type MalwareScanner } from '../scan/malware-scan.js';
import type { PartContext } from './part-context.js';

export function malwareScannerFor(ctx: PartContext, clamd: PrivacySettings['clamd']): MalwareScanner | undefined {
  if (clamd === undefined) return undefined;
  return createMalwareScanner(clamd, { clock: ctx.clock, onAlert: () => ctx.observer.operatorAlert('ClamdUnavailable') });
}
