// The raw store's part of /readyz: its probe (write, read back, delete) within a short bound.
// Never throws, never hangs. A process without a store (the `ops` role) reports it skipped.

import { withTimeout } from '../bounded.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { DependencyCheck } from './readiness.js';

export async function checkRawStore(store: RawStore | undefined, timeoutMs: number): Promise<DependencyCheck> {
  if (store === undefined) return { ok: true, skipped: true };
  try {
    await withTimeout(store.check(), timeoutMs, `raw store ${store.location}`);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
